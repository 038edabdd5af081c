import type {
  ExternalIdentityRecord,
  FederatedSignIn,
  FederationProviderLease,
  IdentityFederationCommands,
  MembershipRecord,
  NewSession,
  SessionRecord,
  UserRecord,
} from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { membershipColumns, sessionColumns, userColumns } from './identity-row.columns.js';
import { membershipFromRow, sessionFromRow } from './identity-row.mappers.js';
import { externalIdentityColumns, externalIdentityFromRow } from './identity-federation.rows.js';
import { insertReplayReceipt, requireLease } from './identity-federation.commands.js';
import { insertAudit, lockUser, rotateWithin } from './identity-session.commands.js';

type LinkInput = Parameters<IdentityFederationCommands['linkExternalIdentity']>[0];

/** The link of (provider, subject), read `FOR SHARE` so it cannot change under the sign-in; or `null`. */
async function findLink(sql: Sql, provider: string, subject: string): Promise<ExternalIdentityRecord | null> {
  const [row] = await sql(
    `select ${allColumns('external_identities')} from ${table('external_identities')}
      where provider = ? and subject = ?
      for share`,
    [provider, subject],
  );
  return row === undefined ? null : externalIdentityFromRow(row);
}

/** Inserts the link; a concurrent link of the same (provider, subject) that committed first → `already_exists`. */
async function insertLink(
  sql: Sql,
  link: { id: string; userId: string; organizationId: string; provider: string; subject: string },
  at: Date,
): Promise<ExternalIdentityRecord> {
  const columns = externalIdentityColumns(link, at);
  const names = Object.keys(columns);
  const [row] = await sql(
    `insert into ${table('external_identities')} (${names.map((c) => `"${c}"`).join(', ')})
     values (${names.map(() => '?').join(', ')})
     on conflict ("provider", "subject") do nothing
     returning ${allColumns('external_identities')}`,
    names.map((c) => columns[c]),
  );
  return externalIdentityFromRow(row ?? abort('already_exists'));
}

/**
 * The link the sign-in goes through, found or created (identity-http §6): an existing link must be
 * active and of the lease's tenant; mode `link` creates one for the initiating user (a link to
 * another user is `already_exists`); mode `sign_in` creates a JIT user (active, no email) with a
 * `viewer` membership, or answers `not_found` without JIT.
 */
async function resolveLink(
  sql: Sql,
  input: LinkInput,
): Promise<{ link: ExternalIdentityRecord; linked: boolean; provisioned: boolean }> {
  const { lease, assertion, mode, externalIdentityId, at } = input;
  const existing = await findLink(sql, lease.storageKey, assertion.subject);
  if (existing !== null) {
    if (existing.organizationId !== lease.organizationId || existing.state !== 'active') abort('invalid_transition');
    if (mode.kind === 'link' && existing.userId !== mode.expectedUserId) abort('already_exists');
    return { link: existing, linked: false, provisioned: false };
  }
  const base = { id: externalIdentityId, organizationId: lease.organizationId, provider: lease.storageKey };
  if (mode.kind === 'link') {
    if (!isUuid(mode.expectedUserId)) abort('not_found');
    const link = await insertLink(sql, { ...base, userId: mode.expectedUserId, subject: assertion.subject }, at);
    return { link, linked: true, provisioned: false };
  }
  if (mode.jit === null) abort('not_found');
  // A JIT user never carries an email, whatever the caller passed: it can never merge with (or
  // collide with) a user of the same address.
  await insertRow(sql, 'users', userColumns({ ...mode.jit.user, primaryEmail: null }, at));
  await insertRow(
    sql,
    'memberships',
    membershipColumns(
      { id: mode.jit.membershipId, organizationId: lease.organizationId, userId: mode.jit.user.id, role: 'viewer' },
      at,
    ),
  );
  const link = await insertLink(sql, { ...base, userId: mode.jit.user.id, subject: assertion.subject }, at);
  return { link, linked: true, provisioned: true };
}

/**
 * The standing the federated session needs, locked in the adapter's order (organization, then
 * membership, then user): active organization, active membership, active user; else
 * `invalid_transition`.
 */
async function requireStanding(
  sql: Sql,
  organizationId: string,
  userId: string,
): Promise<{ membership: MembershipRecord; user: UserRecord }> {
  const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
    organizationId,
  ]);
  if (organization === undefined || organization['state'] !== 'active') abort('invalid_transition');
  const [membershipRow] = await sql(
    `select ${allColumns('memberships')} from ${table('memberships')}
      where organization_id = ? and user_id = ?
      for share`,
    [organizationId, userId],
  );
  const membership = membershipFromRow(membershipRow ?? abort('invalid_transition'));
  if (membership.state !== 'active') abort('invalid_transition');
  const user = await lockUser(sql, userId, 'share');
  if (user.state !== 'active') abort('invalid_transition');
  return { membership, user };
}

/** `true` when `session` is a federated session of `user` through `link` under `lease`. */
function carriesProvenance(
  session: NewSession,
  user: UserRecord,
  link: ExternalIdentityRecord,
  lease: FederationProviderLease,
): boolean {
  const federation = session.federation;
  return (
    session.userId === user.id &&
    session.authenticationMethod === lease.kind &&
    federation !== null &&
    federation.organizationId === lease.organizationId &&
    federation.providerKey === lease.storageKey &&
    federation.providerSessionEpoch === lease.sessionEpoch &&
    federation.externalIdentityId === link.id
  );
}

/**
 * Inserts the federated session (mode `sign_in`) or rotates the initiating session into it (mode
 * `link`: the caller's active session of the expected user, at its current version).
 */
async function issueSession(
  sql: Sql,
  input: LinkInput,
  user: UserRecord,
  session: NewSession,
  predecessor: SessionRecord | null,
): Promise<{ session: SessionRecord; previous: SessionRecord | null }> {
  const { at } = input;
  if (predecessor === null) {
    const inserted = await insertRow(
      sql,
      'sessions',
      sessionColumns(session, { userSessionEpoch: user.sessionEpoch, at }),
    );
    return { session: sessionFromRow(inserted), previous: null };
  }
  return rotateWithin(sql, {
    sessionId: predecessor.id,
    expectedVersion: predecessor.version,
    expectedUserId: predecessor.userId,
    replacement: session,
    at,
  });
}

/**
 * The initiating session of a link, locked so its family, counter and absolute expiry cannot move
 * before the rotation (the replacement continues them); missing → `not_found`, not active or of
 * another user → `session_not_active`.
 */
async function lockPredecessor(sql: Sql, mode: LinkInput['mode'], at: Date): Promise<SessionRecord | null> {
  const id = mode.kind === 'link' ? mode.sessionId : (mode.replacesSessionId ?? null);
  if (id === null) return null;
  if (!isUuid(id)) return mode.kind === 'link' ? abort('not_found') : null;
  const [row] = await sql(`select ${allColumns('sessions')} from ${table('sessions')} where id = ? for update`, [id]);
  if (row === undefined) return mode.kind === 'link' ? abort('not_found') : null;
  const session = sessionFromRow(row);
  if (mode.kind === 'link') {
    if (session.state !== 'active' || session.userId !== mode.expectedUserId) abort('session_not_active');
    return session;
  }
  // A sign-in replaces the caller's session only while it is active and unexpired.
  const live = session.state === 'active' && session.idleExpiresAt > at && session.absoluteExpiresAt > at;
  return live ? session : null;
}

/**
 * `linkExternalIdentity`, the federation callback's one transaction (identity-http §6,
 * identity-model §9.2): lease check (`FOR SHARE` on the control), replay receipt, the link found or
 * created (JIT user and membership with it), the standing of organization, membership and user,
 * then the federated session inserted or the initiating session rotated into it, and the audits.
 * Any failure rolls all of it back.
 *
 * @example
 * const signIn = await handlers.linkExternalIdentity({ lease, assertion, mode: { kind: 'sign_in', jit: null }, externalIdentityId, at, sessionFor, audits });
 */
export class IdentityFederationLinkCommandHandlers implements Pick<IdentityFederationCommands, 'linkExternalIdentity'> {
  constructor(private readonly gateway: StoreGateway) {}

  linkExternalIdentity(input: LinkInput): ReturnType<IdentityFederationCommands['linkExternalIdentity']> {
    const { lease, assertion, at, sessionFor, audits } = input;
    return this.gateway.command(async (sql): Promise<FederatedSignIn> => {
      await requireLease(sql, lease);
      await insertReplayReceipt(sql, lease, assertion, at);
      const { link, linked, provisioned } = await resolveLink(sql, input);
      const { membership, user } = await requireStanding(sql, lease.organizationId, link.userId);
      const locked = await lockPredecessor(sql, input.mode, at);
      // A sign-in rotates the caller's session only when it belongs to the signed-in user.
      const predecessor = locked !== null && locked.userId === user.id ? locked : null;
      const replacement = sessionFor(user, link, predecessor);
      if (!carriesProvenance(replacement, user, link, lease)) abort('invalid_transition');
      const { session, previous } = await issueSession(sql, input, user, replacement, predecessor);
      for (const audit of audits({ user, membership, link, linked, provisioned, session: replacement }))
        await insertAudit(sql, audit);
      return { user, membership, link, linked, provisioned, session, previous };
    });
  }
}
