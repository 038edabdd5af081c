import type { IdentityEnrollmentCommands, InvitationRecord, StoredDigest } from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import {
  invitationColumns,
  membershipColumns,
  organizationColumns,
  sessionColumns,
  userColumns,
} from './identity-row.columns.js';
import {
  invitationFromRow,
  membershipFromRow,
  organizationFromRow,
  sessionFromRow,
  userFromRow,
} from './identity-row.mappers.js';
import { requireActiveOwner } from './identity-organization.commands.js';
import { insertAudit } from './identity-session.commands.js';

/** Serializes bootstrap attempts for the length of their transaction (PostgreSQL server or PGlite). */
const BOOTSTRAP_LOCK = `select pg_advisory_xact_lock(hashtextextended('tessera_identity.bootstrap', 0))`;

/**
 * Bootstrap and invitation commands of identity-model §5.4, §5.7: each one transaction, all or
 * nothing, with the row locks that give concurrent attempts exactly one winner.
 *
 * @example
 * const enrolled = await commands.enrollInvitation({ tokenDigest, at, user, membershipId, session, requireIssuingUser: false, audits });
 */
export class IdentityEnrollmentCommandHandlers implements IdentityEnrollmentCommands {
  constructor(private readonly gateway: StoreGateway) {}

  /** Losers of a concurrent bootstrap, and any bootstrap of a non-empty store, get `already_exists`. */
  bootstrapIdentity(
    input: Parameters<IdentityEnrollmentCommands['bootstrapIdentity']>[0],
  ): ReturnType<IdentityEnrollmentCommands['bootstrapIdentity']> {
    const { user, organization, membership, session, receiptDigest, at, audits } = input;
    return this.gateway.command(async (sql) => {
      const consistent =
        membership.userId === user.id &&
        membership.organizationId === organization.id &&
        membership.role === 'owner' &&
        session.userId === user.id;
      if (!consistent) abort('invalid_transition');
      await sql(BOOTSTRAP_LOCK);
      // Read after taking the lock: under READ COMMITTED this statement sees every earlier winner.
      const [occupied] = await sql(
        `select exists (select 1 from ${table('users')})
             or exists (select 1 from ${table('organizations')})
             or exists (select 1 from ${table('bootstrap_receipts')}) as occupied`,
      );
      if (occupied?.['occupied'] !== false) abort('already_exists');
      const userRow = userFromRow(await insertRow(sql, 'users', userColumns(user, at)));
      const organizationRow = organizationFromRow(
        await insertRow(sql, 'organizations', organizationColumns(organization, at)),
      );
      const membershipRow = membershipFromRow(await insertRow(sql, 'memberships', membershipColumns(membership, at)));
      await insertRow(sql, 'bootstrap_receipts', {
        id: true,
        digest_algorithm: 'sha256',
        digest_encoded: receiptDigest,
        user_id: user.id,
        organization_id: organization.id,
        consumed_at: at,
      });
      const sessionRow = sessionFromRow(
        await insertRow(sql, 'sessions', sessionColumns(session, { userSessionEpoch: userRow.sessionEpoch, at })),
      );
      for (const audit of audits) await insertAudit(sql, audit);
      return { user: userRow, organization: organizationRow, membership: membershipRow, session: sessionRow };
    });
  }

  /** Token digest unique, one pending invitation per organization and lower(email) → `unique_constraint`. */
  createInvitation(
    input: Parameters<IdentityEnrollmentCommands['createInvitation']>[0],
  ): ReturnType<IdentityEnrollmentCommands['createInvitation']> {
    const { invitation, at, audit } = input;
    return this.gateway.command(async (sql) => {
      await requireActiveOrganization(sql, invitation.organizationId);
      if (invitation.role === 'owner' && invitation.invitedByUserId !== null)
        await requireActiveOwner(sql, invitation.organizationId, invitation.invitedByUserId);
      const row = await insertRow(sql, 'invitations', invitationColumns(invitation, at));
      await insertAudit(sql, audit);
      return invitationFromRow(row);
    });
  }

  /**
   * The invitation row is locked first, so concurrent enrollments of one invitation queue behind
   * the winner and then find it `accepted` (`invalid_transition`). The new user's primary email is
   * the invitation's; an email already in use → `already_exists` (or `unique_constraint` when a
   * concurrent enrollment of another invitation took it first).
   */
  enrollInvitation(
    input: Parameters<IdentityEnrollmentCommands['enrollInvitation']>[0],
  ): ReturnType<IdentityEnrollmentCommands['enrollInvitation']> {
    const { tokenDigest, at, user, membershipId, session, requireIssuingUser } = input;
    return this.gateway.command(async (sql) => {
      if (session.userId !== user.id) abort('invalid_transition');
      const invitation = await lockInvitation(sql, tokenDigest);
      if (invitation.state !== 'pending' || at.getTime() >= invitation.expiresAt.getTime()) abort('invalid_transition');
      if (requireIssuingUser && invitation.invitedByUserId === null) abort('invalid_transition');
      await requireActiveOrganization(sql, invitation.organizationId);
      const [taken] = await sql(`select id from ${table('users')} where lower(primary_email) = lower(?) for update`, [
        invitation.email,
      ]);
      if (taken !== undefined) abort('already_exists');
      const userRow = userFromRow(
        await insertRow(sql, 'users', userColumns({ ...user, primaryEmail: invitation.email }, at)),
      );
      const membershipRow = membershipFromRow(
        await insertRow(
          sql,
          'memberships',
          membershipColumns(
            { id: membershipId, organizationId: invitation.organizationId, userId: user.id, role: invitation.role },
            at,
          ),
        ),
      );
      const sessionRow = sessionFromRow(
        await insertRow(sql, 'sessions', sessionColumns(session, { userSessionEpoch: userRow.sessionEpoch, at })),
      );
      const [accepted] = await sql(
        `update ${table('invitations')}
            set state = 'accepted', accepted_at = ?, accepted_by_user_id = ?, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'pending'
        returning ${allColumns('invitations')}`,
        [at, user.id, at, invitation.id, invitation.version],
      );
      const acceptedInvitation = invitationFromRow(accepted ?? abort('version_conflict'));
      for (const audit of input.audits(acceptedInvitation)) await insertAudit(sql, audit);
      return { invitation: acceptedInvitation, user: userRow, membership: membershipRow, session: sessionRow };
    });
  }
}

async function lockInvitation(sql: Sql, digest: StoredDigest): Promise<InvitationRecord> {
  if (digest.keyVersion === null) abort('not_found');
  const [row] = await sql(
    `select ${allColumns('invitations')} from ${table('invitations')}
      where token_digest_algorithm = ? and token_digest_encoded = ? and token_digest_key_version = ?
      for update`,
    [digest.algorithm, digest.encoded, digest.keyVersion],
  );
  return invitationFromRow(row ?? abort('not_found'));
}

/** Pins an active organization for the transaction (`not_found` / `invalid_transition` otherwise). */
async function requireActiveOrganization(sql: Sql, organizationId: string): Promise<void> {
  if (!isUuid(organizationId)) abort('not_found');
  const [row] = await sql(`select state from ${table('organizations')} where id = ? for share`, [organizationId]);
  if (row === undefined) abort('not_found');
  if (row['state'] !== 'active') abort('invalid_transition');
}
