import type { IdentityCredentialCommands, NewRecoveryCode, UserRecord } from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Row, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { claimChallenge, classifyChallengeMiss, completeOrReject } from './identity-ceremony.commands.js';
import { insertCredential } from './identity-credential.commands.js';
import { recoveryCodeColumns, sessionColumns } from './identity-row.columns.js';
import { challengeFromRow, recoveryCodeFromRow, sessionFromRow } from './identity-row.mappers.js';
import { insertAudit, lockUser } from './identity-session.commands.js';

/**
 * Revokes the user's active codes and inserts `codes` as the next generation (the current one
 * + 1, generation 0 for a user who never had codes), checking `expectedGeneration` when given.
 * The caller holds the user row `for update`, which serializes generations per user.
 */
async function replaceGeneration(
  sql: Sql,
  userId: string,
  codes: readonly NewRecoveryCode[],
  at: Date,
  expectedGeneration: number | null,
): Promise<number> {
  const [current] = await sql(
    `select coalesce(max(generation), -1) as generation from ${table('recovery_codes')} where user_id = ?`,
    [userId],
  );
  const generation = Number(current?.['generation'] ?? -1);
  if (expectedGeneration !== null && expectedGeneration !== generation) abort('version_conflict');
  await sql(
    `update ${table('recovery_codes')} set state = 'revoked', updated_at = ?, version = version + 1
      where user_id = ? and state = 'active'`,
    [at, userId],
  );
  for (const code of codes)
    await insertRow(sql, 'recovery_codes', recoveryCodeColumns(code, userId, generation + 1, at));
  return generation + 1;
}

/**
 * Locks the restricted session a recovery enrollment completes: it must be an active, unexpired
 * `recovery`-assurance session of `user` at the user's epoch (a concurrent logout waits, then
 * finds it revoked).
 */
async function lockRestrictedSession(sql: Sql, sessionId: string, user: UserRecord, at: Date): Promise<void> {
  if (!isUuid(sessionId)) abort('not_found');
  const [row] = await sql(`select ${allColumns('sessions')} from ${table('sessions')} where id = ? for update`, [
    sessionId,
  ]);
  const session = sessionFromRow(row ?? abort('not_found'));
  if (session.userId !== user.id) abort('not_found');
  if (session.state !== 'active' || session.userSessionEpoch !== user.sessionEpoch) abort('session_not_active');
  if (at.getTime() >= session.idleExpiresAt.getTime() || at.getTime() >= session.absoluteExpiresAt.getTime())
    abort('session_expired');
  if (session.assurance !== 'recovery') abort('invalid_transition');
}

/**
 * Recovery commands of identity-model §5.6 / §9.2: enrollment completion in a restricted session,
 * code generations and their single use, administrative recovery tickets. Locks follow one order —
 * challenge, user, session, recovery code — as in the session and passkey commands, so concurrent
 * commands on one user queue instead of deadlocking.
 *
 * @example
 * const used = await commands.consumeRecoveryCode({ codeId, expectedVersion: 0, at, session, audit });
 */
export class IdentityRecoveryCommandHandlers implements Pick<
  IdentityCredentialCommands,
  | 'completeRecoveryEnrollment'
  | 'replaceRecoveryCodes'
  | 'consumeRecoveryCode'
  | 'activateAdministrativeRecoveryTicket'
  | 'redeemAdministrativeRecoveryTicket'
> {
  constructor(private readonly gateway: StoreGateway) {}

  /** Revoked sessions carry reason `recovery_enrollment_completed`; rejection semantics as registration. */
  completeRecoveryEnrollment(
    input: Parameters<IdentityCredentialCommands['completeRecoveryEnrollment']>[0],
  ): ReturnType<IdentityCredentialCommands['completeRecoveryEnrollment']> {
    const { claim, at, credential, restrictedSessionId, recoveryCodes, audits, rejection } = input;
    return this.gateway.command(async (sql) => {
      const challenge = await claimChallenge(sql, claim, at, ['webauthn_registration']);
      return completeOrReject(sql, challenge, at, rejection, async () => {
        if (challenge.userId !== null && challenge.userId !== credential.userId) abort('invalid_transition');
        const user = await lockUser(sql, credential.userId, 'update');
        if (user.state !== 'active') abort('invalid_transition');
        await lockRestrictedSession(sql, restrictedSessionId, user, at);
        const inserted = await insertCredential(sql, credential, at);
        const [advanced] = await sql(
          `update ${table('users')} set session_epoch = session_epoch + 1, updated_at = ?, version = version + 1
            where id = ? returning session_epoch`,
          [at, user.id],
        );
        const revoked = await sql(
          `update ${table('sessions')}
              set state = 'revoked', revoked_at = ?, revoked_reason = 'recovery_enrollment_completed',
                  updated_at = ?, version = version + 1
            where user_id = ? and state = 'active'
          returning id`,
          [at, at, user.id],
        );
        const generation = await replaceGeneration(sql, user.id, recoveryCodes, at, null);
        for (const audit of audits) await insertAudit(sql, audit);
        return {
          credential: inserted,
          generation,
          revokedSessionIds: revoked.map((row: Row) => String(row['id'])).sort(),
          sessionEpoch: Number((advanced ?? abort('not_found'))['session_epoch']),
        };
      });
    });
  }

  /** Only an active user's codes are replaced; a stale `expectedGeneration` → `version_conflict`. */
  replaceRecoveryCodes(
    input: Parameters<IdentityCredentialCommands['replaceRecoveryCodes']>[0],
  ): ReturnType<IdentityCredentialCommands['replaceRecoveryCodes']> {
    const { userId, expectedGeneration, codes, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const user = await lockUser(sql, userId, 'update');
      if (user.state !== 'active') abort('invalid_transition');
      const generation = await replaceGeneration(sql, user.id, codes, at, expectedGeneration);
      await insertAudit(sql, audit);
      return { generation };
    });
  }

  /**
   * The user row is locked (`for share`, pinning the epoch the session takes) before the code
   * row (`for update`): concurrent uses of one code queue on it and the losers find it consumed.
   */
  consumeRecoveryCode(
    input: Parameters<IdentityCredentialCommands['consumeRecoveryCode']>[0],
  ): ReturnType<IdentityCredentialCommands['consumeRecoveryCode']> {
    const { codeId, expectedVersion, at, session, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(codeId)) abort('not_found');
      if (session.authenticationMethod !== 'recovery_code') abort('invalid_transition');
      const [owner] = await sql(`select user_id from ${table('recovery_codes')} where id = ?`, [codeId]);
      if (owner === undefined) abort('not_found');
      if (String(owner['user_id']) !== session.userId) abort('invalid_transition');
      const user = await lockUser(sql, session.userId, 'share');
      const [locked] = await sql(
        `select ${allColumns('recovery_codes')} from ${table('recovery_codes')} where id = ? for update`,
        [codeId],
      );
      const code = recoveryCodeFromRow(locked ?? abort('not_found'));
      if (code.state !== 'active') abort('recovery_code_not_active');
      if (code.version !== expectedVersion) abort('version_conflict');
      if (user.state !== 'active') abort('invalid_transition');
      const [consumed] = await sql(
        `update ${table('recovery_codes')} set state = 'consumed', consumed_at = ?, updated_at = ?, version = version + 1
          where id = ? returning ${allColumns('recovery_codes')}`,
        [at, at, codeId],
      );
      const columns = sessionColumns(session, { userSessionEpoch: user.sessionEpoch, at });
      const created = sessionFromRow(await insertRow(sql, 'sessions', columns));
      await insertAudit(sql, audit);
      return { code: recoveryCodeFromRow(consumed ?? abort('internal')), session: created };
    });
  }

  /** Only once, before expiry: an active ticket → `invalid_transition`. */
  activateAdministrativeRecoveryTicket(
    input: Parameters<IdentityCredentialCommands['activateAdministrativeRecoveryTicket']>[0],
  ): ReturnType<IdentityCredentialCommands['activateAdministrativeRecoveryTicket']> {
    const { ticketId, expectedVersion, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(ticketId)) abort('not_found');
      const [row] = await sql(
        `update ${table('challenges')} set activated_at = ?, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'pending' and purpose = 'account_recovery'
            and activated_at is null and expires_at > ?
        returning ${allColumns('challenges')}`,
        [at, at, ticketId, expectedVersion, at],
      );
      if (row === undefined) {
        const expected = { version: expectedVersion, purpose: 'account_recovery', at, activated: false } as const;
        abort(await classifyChallengeMiss(sql, ticketId, expected));
      }
      for (const audit of audits) await insertAudit(sql, audit);
      return challengeFromRow(row);
    });
  }

  /**
   * The session must be an `administrative_recovery` session of the ticket's user; an expired
   * ticket → `challenge_expired` (the service then ends it `expired`), an inactive one →
   * `invalid_transition`, and neither writes anything.
   */
  redeemAdministrativeRecoveryTicket(
    input: Parameters<IdentityCredentialCommands['redeemAdministrativeRecoveryTicket']>[0],
  ): ReturnType<IdentityCredentialCommands['redeemAdministrativeRecoveryTicket']> {
    const { ticketId, expectedVersion, at, session, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(ticketId)) abort('not_found');
      if (session.authenticationMethod !== 'administrative_recovery') abort('invalid_transition');
      const [row] = await sql(
        `update ${table('challenges')} set state = 'consumed', updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'pending' and purpose = 'account_recovery'
            and activated_at is not null and expires_at > ?
        returning ${allColumns('challenges')}`,
        [at, ticketId, expectedVersion, at],
      );
      if (row === undefined) {
        const expected = { version: expectedVersion, purpose: 'account_recovery', at, activated: true } as const;
        abort(await classifyChallengeMiss(sql, ticketId, expected));
      }
      const ticket = challengeFromRow(row);
      if (ticket.userId !== session.userId) abort('invalid_transition');
      const user = await lockUser(sql, session.userId, 'share');
      if (user.state !== 'active') abort('invalid_transition');
      const columns = sessionColumns(session, { userSessionEpoch: user.sessionEpoch, at });
      const created = sessionFromRow(await insertRow(sql, 'sessions', columns));
      for (const audit of audits) await insertAudit(sql, audit);
      return { ticket, session: created };
    });
  }
}
