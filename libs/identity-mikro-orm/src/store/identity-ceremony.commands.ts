import {
  type ChallengeClaim,
  type ChallengePurpose,
  type ChallengeRecord,
  type IdentityCredentialCommands,
  type RejectionAudit,
  type StoreFailureCode,
} from '@tessera/identity';
import {
  abort,
  CommittedRejection,
  insertRow,
  isUuid,
  table,
  type Sql,
  type StoreGateway,
} from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { storeFailureCode } from './identity-store.failures.js';
import { challengeColumns } from './identity-row.columns.js';
import { challengeFromRow } from './identity-row.mappers.js';
import { insertAudit } from './identity-session.commands.js';

/** What a challenge row must still be for a CAS on it to apply (besides `pending`). */
interface ChallengeExpectation {
  readonly version: number;
  readonly purpose?: ChallengePurpose;
  /** Instant at which the challenge must still be unexpired. */
  readonly at?: Date;
  /** Administrative recovery tickets: whether `activatedAt` must be set. */
  readonly activated?: boolean;
}

/**
 * Why a CAS on a challenge matched no row (identity-model §9.3): missing → `not_found`, another
 * purpose → `invalid_transition`, no longer pending → `challenge_not_pending`, another version →
 * `version_conflict`, expired at `at` → `challenge_expired`, a ticket in the wrong activation
 * state → `invalid_transition`.
 */
export async function classifyChallengeMiss(
  sql: Sql,
  challengeId: string,
  expected: ChallengeExpectation,
): Promise<StoreFailureCode> {
  const [row] = await sql(`select ${allColumns('challenges')} from ${table('challenges')} where id = ?`, [challengeId]);
  if (row === undefined) return 'not_found';
  const challenge = challengeFromRow(row);
  if (expected.purpose !== undefined && challenge.purpose !== expected.purpose) return 'invalid_transition';
  if (challenge.state !== 'pending') return 'challenge_not_pending';
  if (challenge.version !== expected.version) return 'version_conflict';
  if (expected.at !== undefined && expected.at.getTime() >= challenge.expiresAt.getTime()) return 'challenge_expired';
  if (expected.activated !== undefined && (challenge.activatedAt !== null) !== expected.activated)
    return 'invalid_transition';
  return 'version_conflict';
}

/**
 * Consumes the challenge a completion claims (pending, its version, its purpose — one of
 * `purposes` — and unexpired at `at`), or rolls the command back with the classified code: the
 * first statement of every completion, so a concurrent finish of the same ceremony queues on the
 * row and then finds it no longer pending.
 */
export async function claimChallenge(
  sql: Sql,
  claim: ChallengeClaim,
  at: Date,
  purposes: readonly ChallengePurpose[],
): Promise<ChallengeRecord> {
  if (!isUuid(claim.challengeId)) abort('not_found');
  if (!purposes.includes(claim.purpose)) abort('invalid_transition');
  const [row] = await sql(
    `update ${table('challenges')}
        set state = 'consumed', updated_at = ?, version = version + 1
      where id = ? and version = ? and state = 'pending' and purpose = ? and expires_at > ?
    returning ${allColumns('challenges')}`,
    [at, claim.challengeId, claim.expectedVersion, claim.purpose, at],
  );
  if (row === undefined)
    abort(
      await classifyChallengeMiss(sql, claim.challengeId, {
        version: claim.expectedVersion,
        purpose: claim.purpose,
        at,
      }),
    );
  return challengeFromRow(row);
}

/** Failures of a completion that its input alone decides: they end the ceremony `failed`. */
const DETERMINISTIC: ReadonlySet<StoreFailureCode> = new Set<StoreFailureCode>([
  'not_found',
  'already_exists',
  'unique_constraint',
  'invalid_transition',
  'session_not_active',
  'session_expired',
]);

/**
 * Runs the rest of a completion after {@link claimChallenge} under a savepoint (identity-model
 * §9.3). A deterministic rejection (duplicate credential id, FED1 re-check, restricted session
 * gone, …) rolls back to the savepoint, turns the consumed challenge into `failed` with the
 * rejection's reason, writes the rejection audits and commits; retryable and unexpected failures
 * roll the whole command back, leaving the challenge pending.
 */
export async function completeOrReject<T>(
  sql: Sql,
  challenge: ChallengeRecord,
  at: Date,
  rejection: RejectionAudit,
  work: () => Promise<T>,
): Promise<T | CommittedRejection> {
  await sql('savepoint tessera_completion');
  try {
    const value = await work();
    await sql('release savepoint tessera_completion');
    return value;
  } catch (error) {
    const code = storeFailureCode(error);
    if (!DETERMINISTIC.has(code)) throw error;
    await sql('rollback to savepoint tessera_completion');
    // Still the claim's single transition pending → v + 1, ending as `failed` instead of `consumed`.
    await sql(`update ${table('challenges')} set state = 'failed', failure_reason = ?, updated_at = ? where id = ?`, [
      rejection.failureReason,
      at,
      challenge.id,
    ]);
    for (const audit of rejection.audits) await insertAudit(sql, audit);
    return new CommittedRejection(code);
  }
}

/**
 * Ceremony commands of identity-model §5.3 / §9.2: create and end challenges (and administrative
 * recovery tickets, which are challenges of purpose `account_recovery`).
 *
 * @example
 * const ended = await commands.consumeChallenge({ challengeId, expectedVersion: 0, outcome: 'failed', failureReason: 'invalid_credentials', at, audits: [rejected] });
 */
export class IdentityCeremonyCommandHandlers implements Pick<
  IdentityCredentialCommands,
  'createChallenge' | 'consumeChallenge'
> {
  constructor(private readonly gateway: StoreGateway) {}

  /** A duplicate challenge digest → `unique_constraint`; a ticket without user binding → `invalid_transition`. */
  createChallenge(
    input: Parameters<IdentityCredentialCommands['createChallenge']>[0],
  ): ReturnType<IdentityCredentialCommands['createChallenge']> {
    const { challenge, at, audits } = input;
    if (audits.length === 0) {
      // A ceremony challenge without audits is one insert: autocommit, no begin/commit round trips.
      return this.gateway.statement(async (sql) =>
        challengeFromRow(await insertRow(sql, 'challenges', challengeColumns(challenge, at))),
      );
    }
    return this.gateway.command(async (sql) => {
      const row = await insertRow(sql, 'challenges', challengeColumns(challenge, at));
      for (const audit of audits) await insertAudit(sql, audit);
      return challengeFromRow(row);
    });
  }

  /** Ends a pending challenge whatever its expiry: the service decides the outcome. */
  consumeChallenge(
    input: Parameters<IdentityCredentialCommands['consumeChallenge']>[0],
  ): ReturnType<IdentityCredentialCommands['consumeChallenge']> {
    const { challengeId, expectedVersion, outcome, failureReason, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(challengeId)) abort('not_found');
      const [row] = await sql(
        `update ${table('challenges')}
            set state = ?, failure_reason = ?, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'pending'
        returning ${allColumns('challenges')}`,
        [outcome, failureReason, at, challengeId, expectedVersion],
      );
      if (row === undefined) abort(await classifyChallengeMiss(sql, challengeId, { version: expectedVersion }));
      for (const audit of audits) await insertAudit(sql, audit);
      return challengeFromRow(row);
    });
  }
}
