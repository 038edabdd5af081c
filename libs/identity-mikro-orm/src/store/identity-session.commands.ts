import type {
  AuditEventInput,
  IdentitySessionCommands,
  NewSession,
  SessionRecord,
  StoreFailureCode,
} from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Row, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { auditColumns, sessionColumns } from './identity-row.columns.js';
import { sessionFromRow, userFromRow } from './identity-row.mappers.js';

/** What a session row must still be for a CAS on it to apply. */
interface SessionExpectation {
  readonly userId?: string;
  readonly version?: number;
  /** Instant at which the session must still be unexpired. */
  readonly at?: Date;
}

/**
 * Why a CAS on a session matched no row (identity-model §9.3): missing (or another user's) →
 * `not_found`, no longer active → `session_not_active`, another version → `version_conflict`,
 * past its idle or absolute expiry → `session_expired`.
 */
export async function classifySessionMiss(
  sql: Sql,
  sessionId: string,
  expected: SessionExpectation,
): Promise<StoreFailureCode> {
  const [row] = await sql(`select ${allColumns('sessions')} from ${table('sessions')} where id = ?`, [sessionId]);
  if (row === undefined) return 'not_found';
  const session = sessionFromRow(row);
  if (expected.userId !== undefined && session.userId !== expected.userId) return 'not_found';
  if (session.state !== 'active') return 'session_not_active';
  if (expected.version !== undefined && session.version !== expected.version) return 'version_conflict';
  const at = expected.at?.getTime();
  if (at !== undefined && (at >= session.idleExpiresAt.getTime() || at >= session.absoluteExpiresAt.getTime()))
    return 'session_expired';
  return 'version_conflict';
}

/** Inserts an audit event in the command's transaction. */
export async function insertAudit(sql: Sql, event: AuditEventInput): Promise<void> {
  await insertRow(sql, 'audit_events', auditColumns(event));
}

/** Locks the user row (`for update` for epoch changes, `for share` to pin the epoch) or rolls back `not_found`. */
export async function lockUser(sql: Sql, userId: string, mode: 'update' | 'share') {
  if (!isUuid(userId)) abort('not_found');
  const [row] = await sql(`select ${allColumns('users')} from ${table('users')} where id = ? for ${mode}`, [userId]);
  return userFromRow(row ?? abort('not_found'));
}

/**
 * Rotates `sessionId` (an active session of `expectedUserId` at `expectedVersion`, at the user's
 * current epoch, unexpired at `at`) into `replacement` inside the caller's transaction: the
 * replacement takes the predecessor's family, its counter + 1, the user's epoch and an absolute
 * expiry no later than the predecessor's, whatever the input says. Shared by `rotateSession` and
 * passkey sign-in / step-up completion.
 */
export async function rotateWithin(
  sql: Sql,
  input: { sessionId: string; expectedVersion: number; expectedUserId: string; replacement: NewSession; at: Date },
): Promise<{ previous: SessionRecord; session: SessionRecord }> {
  const { sessionId, expectedVersion, expectedUserId, replacement, at } = input;
  if (!isUuid(sessionId)) abort('not_found');
  if (replacement.userId !== expectedUserId) abort('invalid_transition');
  // Pins the epoch against a concurrent epoch revocation (which locks the user for update).
  const user = await lockUser(sql, expectedUserId, 'share');
  if (user.state !== 'active') abort('invalid_transition');
  const [locked] = await sql(`select ${allColumns('sessions')} from ${table('sessions')} where id = ? for update`, [
    sessionId,
  ]);
  const old = sessionFromRow(locked ?? abort('not_found'));
  if (old.userId !== expectedUserId) abort('invalid_transition');
  if (old.state !== 'active' || old.userSessionEpoch !== user.sessionEpoch) abort('session_not_active');
  if (old.version !== expectedVersion) abort('version_conflict');
  if (at.getTime() >= old.idleExpiresAt.getTime() || at.getTime() >= old.absoluteExpiresAt.getTime())
    abort('session_expired');
  const inserted = await insertRow(
    sql,
    'sessions',
    sessionColumns(replacement, { userSessionEpoch: user.sessionEpoch, at, predecessor: old }),
  );
  const [rotated] = await sql(
    `update ${table('sessions')}
        set state = 'rotated', rotated_to_id = ?, updated_at = ?, version = version + 1
      where id = ? and version = ? and state = 'active'
    returning ${allColumns('sessions')}`,
    [replacement.id, at, sessionId, expectedVersion],
  );
  if (rotated === undefined) abort(await classifySessionMiss(sql, sessionId, { version: expectedVersion }));
  return { previous: sessionFromRow(rotated), session: sessionFromRow(inserted) };
}

/**
 * Session commands of identity-model §5.1 / §9.2, each one transaction with conditional updates
 * (`… where id = ? and version = ? and state = 'active'`).
 *
 * @example
 * const touched = await commands.touchIdentitySession({ sessionId, expectedVersion: 3, lastUsedAt: now, idleExpiresAt });
 */
export class IdentitySessionCommandHandlers implements IdentitySessionCommands {
  constructor(private readonly gateway: StoreGateway) {}

  touchIdentitySession(
    input: Parameters<IdentitySessionCommands['touchIdentitySession']>[0],
  ): ReturnType<IdentitySessionCommands['touchIdentitySession']> {
    const { sessionId, expectedVersion, lastUsedAt, idleExpiresAt } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(sessionId)) abort('not_found');
      // The idle expiry never passes the absolute one (CHECK idle_expires_at <= absolute_expires_at).
      const [row] = await sql(
        `update ${table('sessions')}
            set last_used_at = ?, idle_expires_at = least(?::timestamptz, absolute_expires_at),
                updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'active' and idle_expires_at > ? and absolute_expires_at > ?
        returning ${allColumns('sessions')}`,
        [lastUsedAt, idleExpiresAt, lastUsedAt, sessionId, expectedVersion, lastUsedAt, lastUsedAt],
      );
      if (row === undefined)
        abort(await classifySessionMiss(sql, sessionId, { version: expectedVersion, at: lastUsedAt }));
      return sessionFromRow(row);
    });
  }

  /** See {@link rotateWithin}; the instant of the rotation is the audit event's `occurredAt`. */
  rotateSession(
    input: Parameters<IdentitySessionCommands['rotateSession']>[0],
  ): ReturnType<IdentitySessionCommands['rotateSession']> {
    const { audit, ...rotation } = input;
    return this.gateway.command(async (sql) => {
      const rotated = await rotateWithin(sql, { ...rotation, at: audit.occurredAt });
      await insertAudit(sql, audit);
      return rotated;
    });
  }

  revokeSession(
    input: Parameters<IdentitySessionCommands['revokeSession']>[0],
  ): ReturnType<IdentitySessionCommands['revokeSession']> {
    const { sessionId, userId, reason, revokedAt, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(sessionId) || !isUuid(userId)) abort('not_found');
      const [row] = await sql(
        `update ${table('sessions')}
            set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
          where id = ? and user_id = ? and state = 'active'
        returning ${allColumns('sessions')}`,
        [revokedAt, reason, revokedAt, sessionId, userId],
      );
      if (row === undefined) abort(await classifySessionMiss(sql, sessionId, { userId }));
      await insertAudit(sql, audit);
      return sessionFromRow(row);
    });
  }

  /**
   * The kept session must be an active session of the user carrying the epoch being replaced
   * (a session already revoked by an earlier epoch advance is never revived).
   */
  revokeUserSessions(
    input: Parameters<IdentitySessionCommands['revokeUserSessions']>[0],
  ): ReturnType<IdentitySessionCommands['revokeUserSessions']> {
    const { audit, ...revocation } = input;
    return this.gateway.command(async (sql) => {
      const revoked = await revokeUserSessionsWithin(sql, revocation);
      await insertAudit(sql, audit);
      return revoked;
    });
  }
}

/**
 * Epoch revocation inside the caller's transaction (identity-model §5.1): locks the user row,
 * `sessionEpoch + 1` exactly, revokes every active session of the user with `reason` except
 * `exceptSessionId` (which takes the new epoch). Shared by `revokeUserSessions` and membership
 * privilege changes.
 */
export async function revokeUserSessionsWithin(
  sql: Sql,
  input: { userId: string; exceptSessionId: string | null; reason: string; revokedAt: Date },
): Promise<{ revokedSessionIds: string[]; sessionEpoch: number }> {
  const { userId, exceptSessionId, reason, revokedAt } = input;
  const user = await lockUser(sql, userId, 'update');
  const [advanced] = await sql(
    `update ${table('users')} set session_epoch = session_epoch + 1, updated_at = ?, version = version + 1
      where id = ? returning session_epoch`,
    [revokedAt, userId],
  );
  const sessionEpoch = Number((advanced ?? abort('not_found'))['session_epoch']);
  if (exceptSessionId !== null)
    await keepSession(sql, exceptSessionId, userId, user.sessionEpoch, sessionEpoch, revokedAt);
  const revoked = await sql(
    `update ${table('sessions')}
        set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
      where user_id = ? and state = 'active'${exceptSessionId === null ? '' : ' and id <> ?'}
    returning id`,
    [revokedAt, reason, revokedAt, userId, ...(exceptSessionId === null ? [] : [exceptSessionId])],
  );
  return { revokedSessionIds: revoked.map((row: Row) => String(row['id'])).sort(), sessionEpoch };
}

async function keepSession(
  sql: Sql,
  sessionId: string,
  userId: string,
  previousEpoch: number,
  sessionEpoch: number,
  at: Date,
): Promise<void> {
  if (!isUuid(sessionId)) abort('not_found');
  const [kept] = await sql(
    `update ${table('sessions')} set user_session_epoch = ?, updated_at = ?, version = version + 1
      where id = ? and user_id = ? and state = 'active' and user_session_epoch = ?
    returning id`,
    [sessionEpoch, at, sessionId, userId, previousEpoch],
  );
  if (kept === undefined) {
    const code = await classifySessionMiss(sql, sessionId, { userId });
    abort(code === 'version_conflict' ? 'session_not_active' : code);
  }
}
