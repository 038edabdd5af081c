import type {
  IdentityOrganizationCommands,
  MembershipChange,
  MembershipRecord,
  OrganizationChange,
  StoreFailureCode,
} from '@tessera/identity';
import { abort, insertRow, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { membershipColumns, organizationColumns } from './identity-row.columns.js';
import { membershipFromRow, organizationFromRow } from './identity-row.mappers.js';
import { insertAudit, lockUser, revokeUserSessionsWithin } from './identity-session.commands.js';

/**
 * Why a CAS on an organization matched no row: missing → `not_found`, no longer active →
 * `invalid_transition`, else `version_conflict`.
 */
async function classifyOrganizationMiss(sql: Sql, organizationId: string): Promise<StoreFailureCode> {
  const [row] = await sql(`select state from ${table('organizations')} where id = ?`, [organizationId]);
  if (row === undefined) return 'not_found';
  return row['state'] !== 'active' ? 'invalid_transition' : 'version_conflict';
}

/** The conditional update of an organization change (`? = version`, state `active`). */
function organizationUpdate(change: OrganizationChange, at: Date): { set: string; params: unknown[] } {
  return change.kind === 'rename'
    ? { set: 'name = ?', params: [change.name] }
    : { set: `state = 'deleted', deleted_at = ?`, params: [at] };
}

/** The conditional update of a membership change. */
function membershipUpdate(change: MembershipChange, at: Date): { set: string; params: unknown[] } {
  return change.kind === 'role'
    ? { set: 'role = ?', params: [change.role] }
    : { set: `state = 'removed', removed_at = ?`, params: [at] };
}

/** `true` for an active owner membership of `organizationId`. */
function isActiveOwner(membership: MembershipRecord, organizationId: string): boolean {
  return membership.organizationId === organizationId && membership.role === 'owner' && membership.state === 'active';
}

/**
 * identity-model §6.1's owner rule under the command's locks: `userId` must hold an active owner
 * membership of `organizationId`, locked `FOR SHARE` so a concurrent demotion either commits first
 * (and this re-check sees it: `not_found`, the route's owner-rule answer) or waits for this command.
 */
export async function requireActiveOwner(sql: Sql, organizationId: string, userId: string): Promise<void> {
  if (!isUuid(userId)) abort('not_found');
  const [owner] = await sql(
    `select id from ${table('memberships')}
      where organization_id = ? and user_id = ? and role = 'owner' and state = 'active'
      for share`,
    [organizationId, userId],
  );
  if (owner === undefined) abort('not_found');
}

/** `true` when `change` to `target` makes or unmakes an owner (an owner-only change). */
function touchesOwner(target: MembershipRecord, change: MembershipChange): boolean {
  return target.role === 'owner' || (change.kind === 'role' && change.role === 'owner');
}

/** `true` when applying `change` to `target` takes an active owner away. */
function unmakesOwner(target: MembershipRecord, change: MembershipChange): boolean {
  return target.role === 'owner' && (change.kind === 'remove' || change.role !== 'owner');
}

/**
 * Organization and membership commands of identity-model §6.1 / §9.2, each one READ COMMITTED
 * transaction. Membership changes take their locks in one order — the organization (share), then
 * its active owner memberships and the target membership together (update, by id), then the target
 * user (update, for the epoch) — so concurrent changes queue instead of deadlocking, and of two
 * concurrent demotions of the last two owners the second re-reads one owner and fails `last_owner`.
 * An owner-only change re-checks its actor among the locked owners, so an owner being demoted at
 * the same moment cannot finish one.
 *
 * @example
 * const changed = await commands.mutateMembership({ organizationId, membershipId, expectedVersion: 0, change: { kind: 'remove' }, revokeSessions: { reason: 'organization_privilege_changed' }, at, audits });
 */
export class IdentityOrganizationCommandHandlers implements IdentityOrganizationCommands {
  constructor(private readonly gateway: StoreGateway) {}

  createOrganization(
    input: Parameters<IdentityOrganizationCommands['createOrganization']>[0],
  ): ReturnType<IdentityOrganizationCommands['createOrganization']> {
    const { organization, owner, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (owner.organizationId !== organization.id || owner.role !== 'owner') abort('invalid_transition');
      // Pins the creator as an active user for the length of the transaction.
      const user = await lockUser(sql, owner.userId, 'share');
      if (user.state !== 'active') abort('invalid_transition');
      const organizationRow = await insertRow(sql, 'organizations', organizationColumns(organization, at));
      const membershipRow = await insertRow(sql, 'memberships', membershipColumns(owner, at));
      for (const audit of audits) await insertAudit(sql, audit);
      return { organization: organizationFromRow(organizationRow), membership: membershipFromRow(membershipRow) };
    });
  }

  mutateOrganization(
    input: Parameters<IdentityOrganizationCommands['mutateOrganization']>[0],
  ): ReturnType<IdentityOrganizationCommands['mutateOrganization']> {
    const { organizationId, expectedVersion, change, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      const update = organizationUpdate(change, at);
      const [row] = await sql(
        `update ${table('organizations')} set ${update.set}, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'active'
        returning ${allColumns('organizations')}`,
        [...update.params, at, organizationId, expectedVersion],
      );
      if (row === undefined) abort(await classifyOrganizationMiss(sql, organizationId));
      await insertAudit(sql, audit);
      return organizationFromRow(row);
    });
  }

  mutateMembership(
    input: Parameters<IdentityOrganizationCommands['mutateMembership']>[0],
  ): ReturnType<IdentityOrganizationCommands['mutateMembership']> {
    const { organizationId, membershipId, expectedVersion, change, revokeSessions, at, audits, actorUserId } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId) || !isUuid(membershipId)) abort('not_found');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        organizationId,
      ]);
      if (organization === undefined) abort('not_found');
      if (organization['state'] !== 'active') abort('invalid_transition');
      // One statement locks the active owners and the target in id order, so concurrent changes
      // queue without a lock-order cycle even while the owner set shrinks under them.
      const locked = (
        await sql(
          `select ${allColumns('memberships')} from ${table('memberships')}
            where (organization_id = ? and role = 'owner' and state = 'active') or id = ?
            order by id
            for update`,
          [organizationId, membershipId],
        )
      ).map(membershipFromRow);
      const target = locked.find((row) => row.id === membershipId) ?? abort('not_found');
      if (target.organizationId !== organizationId) abort('not_found');
      if (target.state !== 'active') abort('invalid_transition');
      if (target.version !== expectedVersion) abort('version_conflict');
      // The actor's owner membership, if any, is among the rows just locked (re-evaluated under the
      // lock): a demotion that committed meanwhile took it out of that set.
      if (
        actorUserId !== null &&
        touchesOwner(target, change) &&
        !locked.some((row) => row.userId === actorUserId && isActiveOwner(row, organizationId))
      )
        abort('not_found');
      const otherOwners = locked.filter((row) => row.id !== target.id && isActiveOwner(row, organizationId));
      if (unmakesOwner(target, change) && otherOwners.length === 0) abort('last_owner');
      const update = membershipUpdate(change, at);
      const [row] = await sql(
        `update ${table('memberships')} set ${update.set}, updated_at = ?, version = version + 1
          where id = ? and version = ? and state = 'active'
        returning ${allColumns('memberships')}`,
        [...update.params, at, membershipId, expectedVersion],
      );
      const membership = membershipFromRow(row ?? abort('version_conflict'));
      const revoked =
        revokeSessions === null
          ? null
          : await revokeUserSessionsWithin(sql, {
              userId: membership.userId,
              exceptSessionId: null,
              reason: revokeSessions.reason,
              revokedAt: at,
            });
      for (const audit of audits) await insertAudit(sql, audit);
      return {
        membership,
        revokedSessionIds: revoked?.revokedSessionIds ?? [],
        sessionEpoch: revoked?.sessionEpoch ?? null,
      };
    });
  }
}
