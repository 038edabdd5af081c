import type {
  CredentialRecord,
  IdentityCredentialCommands,
  NewCredential,
  SessionRecord,
  StoreFailureCode,
} from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { claimChallenge, completeOrReject } from './identity-ceremony.commands.js';
import { credentialColumns, sessionColumns } from './identity-row.columns.js';
import { credentialFromRow, sessionFromRow } from './identity-row.mappers.js';
import { insertAudit, lockUser, rotateWithin } from './identity-session.commands.js';
import { signInFromRow, signInStatement } from './identity-sign-in.statement.js';

/** What a credential row must still be for a CAS on it to apply. */
interface CredentialExpectation {
  readonly userId?: string;
  /** `active` for a ceremony, `not_revoked` for a rename. */
  readonly usable: 'active' | 'not_revoked';
}

/**
 * Why a CAS on a credential matched no row: missing (or another user's) → `not_found`, in a state
 * that does not allow the change → `invalid_transition`, another version → `version_conflict`.
 */
export async function classifyCredentialMiss(
  sql: Sql,
  credentialId: string,
  expected: CredentialExpectation,
): Promise<StoreFailureCode> {
  const [row] = await sql(`select ${allColumns('credentials')} from ${table('credentials')} where id = ?`, [
    credentialId,
  ]);
  if (row === undefined) return 'not_found';
  const credential = credentialFromRow(row);
  if (expected.userId !== undefined && credential.userId !== expected.userId) return 'not_found';
  if (expected.usable === 'active' ? credential.state !== 'active' : credential.state === 'revoked')
    return 'invalid_transition';
  return 'version_conflict';
}

/**
 * Inserts a new active passkey of an active user. A WebAuthn id already registered (to anyone)
 * fails on the global UNIQUE with `unique_constraint`.
 */
export async function insertCredential(sql: Sql, credential: NewCredential, at: Date): Promise<CredentialRecord> {
  return credentialFromRow(await insertRow(sql, 'credentials', credentialColumns(credential, at)));
}

/**
 * Passkey commands of identity-model §5.3 / §9.2: registration and authentication completions
 * (each consuming its ceremony, with the rejection semantics of {@link completeOrReject}),
 * quarantine on a counter regression, and the owner's rename / revoke.
 *
 * @example
 * const done = await commands.completeCredentialAuthentication({ claim, at, credentialId, expectedCredentialVersion: 4, signCount: 0, backedUp: true, session, rotateFrom: null, audits, rejection });
 */
export class IdentityCredentialCommandHandlers implements Pick<
  IdentityCredentialCommands,
  | 'completeCredentialRegistration'
  | 'completeCredentialAuthentication'
  | 'quarantineCredentialAuthentication'
  | 'mutateCredential'
> {
  constructor(private readonly gateway: StoreGateway) {}

  /**
   * The challenge must name the credential's user when it names one. FED1 (`requireNoCredential`)
   * locks the user row for update, so of two concurrent first passkeys the second sees the first.
   */
  completeCredentialRegistration(
    input: Parameters<IdentityCredentialCommands['completeCredentialRegistration']>[0],
  ): ReturnType<IdentityCredentialCommands['completeCredentialRegistration']> {
    const { claim, at, credential, requireNoCredential, audits, rejection } = input;
    return this.gateway.command(async (sql) => {
      const challenge = await claimChallenge(sql, claim, at, ['webauthn_registration']);
      return completeOrReject(sql, challenge, at, rejection, async () => {
        if (challenge.userId !== null && challenge.userId !== credential.userId) abort('invalid_transition');
        const user = await lockUser(sql, credential.userId, requireNoCredential ? 'update' : 'share');
        if (user.state !== 'active') abort('invalid_transition');
        if (requireNoCredential) {
          const [existing] = await sql(
            `select id from ${table('credentials')} where user_id = ? and state <> 'revoked' limit 1`,
            [user.id],
          );
          if (existing !== undefined) abort('already_exists');
        }
        const inserted = await insertCredential(sql, credential, at);
        for (const audit of audits) await insertAudit(sql, audit);
        return inserted;
      });
    });
  }

  /**
   * The session to create is a passkey session of the credential's owner (and of the challenge's
   * user, for step-up); the new session takes the user's current epoch, or with `rotateFrom`
   * everything {@link rotateWithin} stamps. A sign-in without rotation first tries the single
   * statement of {@link signInStatement}; whatever it does not complete, the transaction decides.
   */
  async completeCredentialAuthentication(
    input: Parameters<IdentityCredentialCommands['completeCredentialAuthentication']>[0],
  ): ReturnType<IdentityCredentialCommands['completeCredentialAuthentication']> {
    const statement = signInStatement(input);
    if (statement !== undefined) {
      const done = await this.gateway.statement(async (sql) => (await sql(statement.query, statement.values))[0]);
      if (done.ok && done.value !== undefined) return { ok: true, value: signInFromRow(done.value) };
    }
    return this.completeInTransaction(input);
  }

  private completeInTransaction(
    input: Parameters<IdentityCredentialCommands['completeCredentialAuthentication']>[0],
  ): ReturnType<IdentityCredentialCommands['completeCredentialAuthentication']> {
    const { claim, at, credentialId, expectedCredentialVersion, signCount, backedUp, session, rotateFrom } = input;
    return this.gateway.command(async (sql) => {
      const challenge = await claimChallenge(sql, claim, at, ['webauthn_authentication', 'step_up']);
      return completeOrReject(sql, challenge, at, input.rejection, async () => {
        if (challenge.userId !== null && challenge.userId !== session.userId) abort('invalid_transition');
        if (session.authenticationMethod !== 'passkey') abort('invalid_transition');
        const user = await lockUser(sql, session.userId, 'share');
        if (user.state !== 'active') abort('invalid_transition');
        if (!isUuid(credentialId)) abort('not_found');
        const [row] = await sql(
          `update ${table('credentials')}
              set sign_count = greatest(sign_count, ?), backed_up = ?, last_used_at = ?, updated_at = ?, version = version + 1
            where id = ? and user_id = ? and version = ? and state = 'active'
          returning ${allColumns('credentials')}`,
          [signCount, backedUp, at, at, credentialId, user.id, expectedCredentialVersion],
        );
        if (row === undefined)
          abort(await classifyCredentialMiss(sql, credentialId, { userId: user.id, usable: 'active' }));
        let previous: SessionRecord | null = null;
        let created: SessionRecord;
        if (rotateFrom === null) {
          const columns = sessionColumns(session, { userSessionEpoch: user.sessionEpoch, at });
          created = sessionFromRow(await insertRow(sql, 'sessions', columns));
        } else {
          const rotation = { ...rotateFrom, expectedUserId: user.id, replacement: session, at };
          ({ previous, session: created } = await rotateWithin(sql, rotation));
        }
        for (const audit of input.audits) await insertAudit(sql, audit);
        return { credential: credentialFromRow(row), session: created, previous };
      });
    });
  }

  /**
   * The ceremony is consumed (not failed) and the passkey, which must be active and belong to the
   * challenge's user when it names one, becomes `suspected_clone`; any failure writes nothing.
   */
  quarantineCredentialAuthentication(
    input: Parameters<IdentityCredentialCommands['quarantineCredentialAuthentication']>[0],
  ): ReturnType<IdentityCredentialCommands['quarantineCredentialAuthentication']> {
    const { claim, at, credentialId, audits } = input;
    return this.gateway.command(async (sql) => {
      const challenge = await claimChallenge(sql, claim, at, ['webauthn_authentication', 'step_up']);
      if (!isUuid(credentialId)) abort('not_found');
      const [row] = await sql(
        `update ${table('credentials')}
            set state = 'suspected_clone', updated_at = ?, version = version + 1
          where id = ? and state = 'active' and (?::uuid is null or user_id = ?::uuid)
        returning ${allColumns('credentials')}`,
        [at, credentialId, challenge.userId, challenge.userId],
      );
      if (row === undefined) {
        const userId = challenge.userId ?? undefined;
        abort(await classifyCredentialMiss(sql, credentialId, { userId, usable: 'active' }));
      }
      for (const audit of audits) await insertAudit(sql, audit);
      return credentialFromRow(row);
    });
  }

  /** Rename keeps the state (any but `revoked`); revoke stamps `revokedAt`. Another user's passkey is `not_found`. */
  mutateCredential(
    input: Parameters<IdentityCredentialCommands['mutateCredential']>[0],
  ): ReturnType<IdentityCredentialCommands['mutateCredential']> {
    const { credentialId, userId, expectedVersion, change, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(credentialId) || !isUuid(userId)) abort('not_found');
      const [set, params] =
        change.kind === 'rename' ? ['name = ?', [change.name]] : ["state = 'revoked', revoked_at = ?", [at]];
      const [row] = await sql(
        `update ${table('credentials')}
            set ${set}, updated_at = ?, version = version + 1
          where id = ? and user_id = ? and version = ? and state <> 'revoked'
        returning ${allColumns('credentials')}`,
        [...params, at, credentialId, userId, expectedVersion],
      );
      if (row === undefined) abort(await classifyCredentialMiss(sql, credentialId, { userId, usable: 'not_revoked' }));
      await insertAudit(sql, audit);
      return credentialFromRow(row);
    });
  }
}
