import type {
  AuditEventInput,
  IdentityInvitationAuditCommands,
  MembershipRecord,
  StoreFailureCode,
} from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { membershipColumns } from './identity-row.columns.js';
import { invitationFromRow, membershipFromRow } from './identity-row.mappers.js';
import { requireActiveOwner } from './identity-organization.commands.js';
import { insertAudit } from './identity-session.commands.js';

type MutateInput = Parameters<IdentityInvitationAuditCommands['mutateInvitation']>[0];
type CreateMembershipInput = Parameters<IdentityInvitationAuditCommands['createMembership']>[0];

/**
 * Invitation revocation and acceptance by an existing account (identity-model §5.4, §9.2, §9.3):
 * each one READ COMMITTED transaction; revocation is a conditional update, acceptance locks the
 * invitation row first (as enrollment does), so one invitation has exactly one winner whichever
 * command reaches it.
 *
 * @example
 * const accepted = await commands.createMembership({ membership, invitation: { invitationId, expectedVersion: 0 }, at, audits });
 */
export class IdentityInvitationCommandHandlers implements IdentityInvitationAuditCommands {
  constructor(private readonly gateway: StoreGateway) {}

  /**
   * CAS `pending` + version → `revoked`; a miss is re-read and classified. An owner invitation
   * revoked by a user re-checks that user's owner membership under lock. An expired invitation
   * is still stored as `pending` (expiry is never written) and can be revoked, which frees its
   * (organization, email) for a new invitation.
   */
  mutateInvitation(input: MutateInput): ReturnType<IdentityInvitationAuditCommands['mutateInvitation']> {
    const { invitationId, organizationId, expectedVersion, at, audit, actorUserId } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(invitationId) || !isUuid(organizationId)) abort('not_found');
      if (actorUserId !== null) {
        const [pending] = await sql(`select role from ${table('invitations')} where id = ? and organization_id = ?`, [
          invitationId,
          organizationId,
        ]);
        if (pending?.['role'] === 'owner') await requireActiveOwner(sql, organizationId, actorUserId);
      }
      const [row] = await sql(
        `update ${table('invitations')}
            set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
          where id = ? and organization_id = ? and version = ? and state = 'pending'
        returning ${allColumns('invitations')}`,
        [at, at, invitationId, organizationId, expectedVersion],
      );
      if (row === undefined) abort(await classifyInvitationMiss(sql, input));
      await insertAudit(sql, audit);
      return invitationFromRow(row);
    });
  }

  /**
   * Locks the invitation (`FOR UPDATE`), then pins the user and the organization (`FOR SHARE`),
   * then the user's membership there, if any (`FOR UPDATE`): a removed one is reactivated with the
   * invited role (a rejoin), an active or suspended one fails `unique_constraint`, and without one
   * the insert fails on the (organization, user) UNIQUE when a concurrent acceptance won.
   */
  createMembership(input: CreateMembershipInput): ReturnType<IdentityInvitationAuditCommands['createMembership']> {
    const { membership, invitation: acceptance, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(acceptance.invitationId) || !isUuid(membership.userId)) abort('not_found');
      const [locked] = await sql(
        `select ${allColumns('invitations')} from ${table('invitations')} where id = ? for update`,
        [acceptance.invitationId],
      );
      const invitation = invitationFromRow(locked ?? abort('not_found'));
      if (invitation.state !== 'pending' || at.getTime() >= invitation.expiresAt.getTime()) abort('invalid_transition');
      if (invitation.version !== acceptance.expectedVersion) abort('version_conflict');
      if (invitation.organizationId !== membership.organizationId || invitation.role !== membership.role)
        abort('invalid_transition');
      // The email comparison runs in the database: the same lower() as the users' unique email index.
      const [user] = await sql(
        `select state, coalesce(lower(primary_email) = lower(?), false) as email_matches
           from ${table('users')} where id = ? for share`,
        [invitation.email, membership.userId],
      );
      if (user === undefined) abort('not_found');
      if (user['state'] !== 'active' || user['email_matches'] !== true) abort('invalid_transition');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        invitation.organizationId,
      ]);
      if (organization?.['state'] !== 'active') abort('invalid_transition');
      const rejoined = await reactivateRemovedMembership(sql, membership, at);
      const created =
        rejoined ?? membershipFromRow(await insertRow(sql, 'memberships', membershipColumns(membership, at)));
      const [accepted] = await sql(
        `update ${table('invitations')}
            set state = 'accepted', accepted_at = ?, accepted_by_user_id = ?, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'pending'
        returning ${allColumns('invitations')}`,
        [at, membership.userId, at, invitation.id, invitation.version],
      );
      const acceptedInvitation = invitationFromRow(accepted ?? abort('version_conflict'));
      for (const audit of audits)
        await insertAudit(sql, rejoined === null ? audit : rejoinedAudit(audit, membership.id, created.id));
      return { membership: created, invitation: acceptedInvitation };
    });
  }
}

/**
 * The user's removed membership in the organization, reactivated (`active`, the invited role,
 * `removedAt` cleared, version + 1); `null` when there is none. An active or suspended membership
 * fails `unique_constraint`, as the insert would.
 */
async function reactivateRemovedMembership(
  sql: Sql,
  membership: CreateMembershipInput['membership'],
  at: Date,
): Promise<MembershipRecord | null> {
  const [existing] = await sql(
    `select id, state from ${table('memberships')} where organization_id = ? and user_id = ? for update`,
    [membership.organizationId, membership.userId],
  );
  if (existing === undefined) return null;
  if (existing['state'] !== 'removed') abort('unique_constraint');
  const [row] = await sql(
    `update ${table('memberships')}
        set state = 'active', role = ?, removed_at = null, updated_at = ?, version = version + 1
      where id = ?
    returning ${allColumns('memberships')}`,
    [membership.role, at, existing['id']],
  );
  return membershipFromRow(row ?? abort('internal'));
}

/** A `membership.created` audit of the proposed membership, retargeted at the rejoined one. */
function rejoinedAudit(audit: AuditEventInput, proposedId: string, rejoinedId: string): AuditEventInput {
  if (audit.action !== 'membership.created' || audit.target?.id !== proposedId) return audit;
  return { ...audit, target: { type: 'membership', id: rejoinedId }, reasonCode: 'rejoined' };
}

/**
 * Why the revocation CAS matched no row: missing or another organization's → `not_found`, no
 * longer pending → `invalid_transition`, otherwise another version.
 */
async function classifyInvitationMiss(sql: Sql, input: MutateInput): Promise<StoreFailureCode> {
  const [row] = await sql(`select ${allColumns('invitations')} from ${table('invitations')} where id = ?`, [
    input.invitationId,
  ]);
  if (row === undefined) return 'not_found';
  const invitation = invitationFromRow(row);
  if (invitation.organizationId !== input.organizationId) return 'not_found';
  if (invitation.state !== 'pending') return 'invalid_transition';
  return 'version_conflict';
}
