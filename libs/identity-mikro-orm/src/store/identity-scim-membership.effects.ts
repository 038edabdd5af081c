import type {
  AuditEventInput,
  MembershipRecord,
  ScimAuditFactory,
  ScimGroupRoleRule,
  ScimTenant,
} from '@tessera/identity';
import { abort, insertRows, table, type Sql } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { auditColumns } from './identity-row.columns.js';
import { membershipFromRow, text } from './identity-row.mappers.js';
import { jsonIds } from './identity-scim.rows.js';

/** Why SCIM revoked a session or a device token family (`revoked_reason`). */
const REVOCATION_REASON = 'scim_membership_changed';

const ROLE_BY_RANK = ['viewer', 'publisher', 'admin'] as const;
const RANK_BY_ROLE: Readonly<Record<ScimGroupRoleRule['role'], number>> = { viewer: 0, publisher: 1, admin: 2 };

/** What one SCIM batch carries through its statements: the transaction, the tenant, its audits and row count. */
export interface ScimBatchContext {
  readonly sql: Sql;
  readonly tenant: ScimTenant;
  readonly at: Date;
  readonly groupRoles: readonly ScimGroupRoleRule[];
  readonly audit: ScimAuditFactory;
  /** Audit events in order, inserted together before the receipt. */
  readonly audits: AuditEventInput[];
  /** Rows written so far (the receipt's `mutation_count`). */
  changes: number;
}

/**
 * Queues the audit event the batch's factory builds for `facts`.
 *
 * @example
 * record(context, 'membership.changed', { type: 'membership', id: membershipId });
 */
export function record(context: ScimBatchContext, action: string, target: { type: string; id: string } | null): void {
  context.audits.push(context.audit({ action, target }));
}

/** Audit rows per insert: 17 parameters each stays far below PostgreSQL's 65,535 per statement. */
const AUDIT_CHUNK = 1000;

/**
 * Inserts every queued audit event, a thousand rows per statement. The first statement also pins
 * the organization `for share` and aborts `not_found` (rolling the batch back) unless it is still
 * active: a concurrent soft delete either committed before (seen here) or waits for this batch. An
 * organization change locks only its own row, so taking this lock last never closes a cycle.
 *
 * @example
 * await flushAudits(context);
 */
export async function flushAudits(context: ScimBatchContext): Promise<void> {
  if (context.audits.length === 0) abort('internal');
  for (let start = 0; start < context.audits.length; start += AUDIT_CHUNK) {
    const rows = context.audits.slice(start, start + AUDIT_CHUNK).map(auditColumns);
    if (start > 0) {
      await insertRows(context.sql, 'audit_events', rows);
      continue;
    }
    const [first] = await insertRows(context.sql, 'audit_events', rows, {
      with: `with pinned as (select state from ${table('organizations')} where id = ? for share)`,
      params: [context.tenant.organizationId],
      returning: `(select state from pinned) as organization_state`,
    });
    if (first?.['organization_state'] !== 'active') abort('not_found');
  }
}

interface Standing {
  readonly scimUserId: string;
  readonly userId: string;
  /** Active SCIM user and `active = true`. */
  readonly wanted: boolean;
  readonly rank: number;
  /** The tenant membership as read without a lock (a plan; decided again under the lock). */
  readonly membership: { readonly role: string; readonly state: string } | null;
}

/**
 * The standing of the given SCIM users of the tenant in one set-based statement: whether their
 * membership should be active, the highest rank their active groups map to (0 = `viewer`), and
 * their tenant membership as it is now (unlocked).
 */
async function standings(context: ScimBatchContext, scimUserIds: readonly string[]): Promise<Standing[]> {
  const rules = context.groupRoles;
  const rows = await context.sql(
    `with rules as (select r.kind, r.value, r.rank from unnest(?::text[], ?::text[], ?::int[]) as r(kind, value, rank))
     select u.id, u.user_id, (u.state = 'active' and u.active) as wanted, coalesce(max(r.rank), 0) as rank,
            ms.role as membership_role, ms.state as membership_state
       from ${table('scim_users')} u
       left join ${table('memberships')} ms on ms.organization_id = u.organization_id and ms.user_id = u.user_id
       left join ${table('scim_group_members')} m on m.scim_user_id = u.id
       left join ${table('scim_groups')} g on g.id = m.group_id and g.state = 'active'
       left join rules r on g.id is not null
        and ((r.kind = 'display_name' and lower(g.display_name) = lower(r.value))
          or (r.kind = 'external_id' and g.external_id = r.value))
      where u.id = any(?::uuid[]) and u.organization_id = ? and u.provider = ?
      group by u.id, u.user_id, u.state, u.active, ms.role, ms.state`,
    [
      rules.map((rule) => ('displayName' in rule.match ? 'display_name' : 'external_id')),
      rules.map((rule) => ('displayName' in rule.match ? rule.match.displayName : rule.match.externalId)),
      rules.map((rule) => RANK_BY_ROLE[rule.role] ?? 0),
      scimUserIds,
      context.tenant.organizationId,
      context.tenant.provider,
    ],
  );
  return rows.map((row) => ({
    scimUserId: text(row, 'id'),
    userId: text(row, 'user_id'),
    wanted: row['wanted'] === true,
    rank: Number(row['rank']),
    membership:
      row['membership_role'] === null || row['membership_role'] === undefined
        ? null
        : { role: text(row, 'membership_role'), state: text(row, 'membership_state') },
  }));
}

/** The membership each standing asks for, or `null` when it stays as it is. */
function target(
  membership: { readonly role: string; readonly state: string },
  standing: Standing,
  reactivating: boolean,
): { role: string; state: string } | null {
  if (!standing.wanted) return membership.state === 'removed' ? null : { role: membership.role, state: 'removed' };
  // An administrator's suspension stands.
  if (membership.state === 'suspended') return null;
  const mapped = ROLE_BY_RANK[Math.min(standing.rank, 2)]!;
  // A removed membership comes back only when the SCIM user is reactivated in this batch (never
  // because of an unrelated change: a person removed by hand stays removed), and never as owner.
  if (membership.state === 'removed') return reactivating ? { role: mapped, state: 'active' } : null;
  // Owners keep `owner` (SCIM never grants or takes it).
  const role = membership.role === 'owner' ? 'owner' : mapped;
  return membership.role === role ? null : { role, state: 'active' };
}

const isActiveOwner = (m: { readonly role: string; readonly state: string }) =>
  m.role === 'owner' && m.state === 'active';

/**
 * In one statement: the active device token families of the organization of `userIds` (device
 * commands lock a family before its membership: taken first, so a refresh racing this batch queues
 * instead of deadlocking), then their memberships — with the organization's active owners when
 * `withOwners` — locked `for update` in id order.
 */
async function lockMemberships(
  context: ScimBatchContext,
  userIds: readonly string[],
  withOwners: boolean,
): Promise<MembershipRecord[]> {
  const { organizationId } = context.tenant;
  const owners = withOwners ? `(role = 'owner' and state = 'active') or ` : '';
  return (
    await context.sql(
      `with families as (
         select id from ${table('device_token_families')}
          where user_id = any(?::uuid[]) and organization_id = ? and state = 'active'
          order by id
          for update)
       select ${allColumns('memberships')} from ${table('memberships')}
        where (select count(*) from families) >= 0
          and organization_id = ? and (${owners}user_id = any(?::uuid[]))
        order by id
        for update`,
      [userIds, organizationId, organizationId, userIds],
    )
  ).map(membershipFromRow);
}

/**
 * Brings the tenant memberships of the given SCIM users in line with their SCIM state and groups
 * (identity-model §5.10), set-based. One statement reads each user's standing and membership; when
 * nothing would change (a rename, a group without a mapped role) no lock is taken. Otherwise the
 * changing users' active device token families of the organization, then their memberships (with
 * the organization's active owners when an owner would leave `active`) are locked `for update` in
 * id order (one statement), the changes are decided again on the locked rows, the last-owner rule
 * is checked on the final state, and one statement writes the changed memberships and revokes,
 * for every membership that left `active` or changed role, its federated sessions and device token
 * families of this organization. Queues `membership.changed`, `session.revoked` and `device_token.revoked` audits.
 *
 * `reactivated`: SCIM users whose `active` went from false to true in this batch — the only case
 * in which a `removed` membership becomes active again (with the mapped role, never `owner`).
 *
 * @example
 * await reconcileMemberships(context, [scimUserId]);
 */
export async function reconcileMemberships(
  context: ScimBatchContext,
  scimUserIds: readonly string[],
  reactivated: ReadonlySet<string> = new Set(),
): Promise<void> {
  const ids = [...new Set(scimUserIds)];
  if (ids.length === 0) return;
  const planned = (await standings(context, ids)).filter(
    (standing) =>
      standing.membership !== null &&
      target(standing.membership, standing, reactivated.has(standing.scimUserId)) !== null,
  );
  if (planned.length === 0) return;
  const userIds = planned.map((standing) => standing.userId);
  // The owner set is locked only when an owner may leave `active` (the last-owner rule); one
  // statement takes it with the users' memberships in id order, as the organization commands do.
  let ownersLocked = planned.some((standing) => isActiveOwner(standing.membership!) && !standing.wanted);
  let locked = await lockMemberships(context, userIds, ownersLocked);
  const decide = () => {
    const byUser = new Map(locked.map((membership) => [membership.userId, membership]));
    const decided: { membership: MembershipRecord; role: string; state: string }[] = [];
    for (const standing of planned) {
      const membership = byUser.get(standing.userId);
      const next = membership === undefined ? null : target(membership, standing, reactivated.has(standing.scimUserId));
      if (membership !== undefined && next !== null) decided.push({ membership, ...next });
    }
    return decided;
  };
  let changes = decide();
  // A membership made owner after the unlocked read: lock the owner set now (rare; PostgreSQL
  // breaks a lock-order cycle with a deadlock error, which fails this batch closed).
  if (!ownersLocked && changes.some((c) => isActiveOwner(c.membership) && c.state !== 'active')) {
    locked = await lockMemberships(context, userIds, true);
    ownersLocked = true;
    changes = decide();
  }
  if (changes.length === 0) return;
  const changed = new Map(changes.map((change) => [change.membership.id, change]));
  const ownersBefore = locked.filter(isActiveOwner).length;
  const ownersAfter = locked.filter((m) => isActiveOwner(changed.get(m.id) ?? m)).length;
  if (ownersLocked && ownersBefore > 0 && ownersAfter === 0) abort('last_owner');

  const revoked = changes
    .filter((c) => c.membership.state === 'active' && (c.state !== 'active' || c.role !== c.membership.role))
    .map((c) => c.membership.userId);
  await writeChanges(context, changes, revoked);
}

/**
 * One statement: the changed memberships written, and the active federated sessions and device
 * token families (with their tokens) of this organization of the `revoked` users revoked — never
 * the user epoch, passkey sessions or other organizations. Set-based: the same statement for one
 * user or a thousand. Queues `membership.changed`, `session.revoked` and `device_token.revoked`.
 */
async function writeChanges(
  context: ScimBatchContext,
  changes: readonly { membership: MembershipRecord; role: string; state: string }[],
  revoked: readonly string[],
): Promise<void> {
  const { sql, tenant, at } = context;
  const [row] = await sql(
    `with changed as (
       update ${table('memberships')} m
          set role = v.role, state = v.state,
              removed_at = case when v.state = 'removed' then coalesce(m.removed_at, ?::timestamptz) else null end,
              updated_at = ?, version = m.version + 1
         from unnest(?::uuid[], ?::text[], ?::text[]) as v(id, role, state)
        where m.id = v.id
       returning m.id),
     sessions as (
       update ${table('sessions')}
          set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
        where user_id = any(?::uuid[]) and state = 'active' and federation_organization_id = ?
       returning id),
     families as (
       update ${table('device_token_families')}
          set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
        where user_id = any(?::uuid[]) and organization_id = ? and state = 'active'
       returning id, device_grant_id),
     access as (
       update ${table('device_access_tokens')}
          set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
        where family_id in (select id from families) and state = 'active'
       returning id),
     refresh as (
       update ${table('device_refresh_tokens')}
          set state = case when state = 'active' then 'revoked' else state end,
              revoked_at = case when state = 'active' then ?::timestamptz else revoked_at end,
              retry_sealed_successor = null, retry_until = null, retry_access_token_id = null,
              updated_at = ?, version = version + 1
        where family_id in (select id from families) and (state = 'active' or retry_until is not null)
       returning id)
     select (select count(*)::int from changed) as changed,
            coalesce((select json_agg(id order by id) from sessions), '[]'::json) as sessions,
            coalesce((select json_agg(device_grant_id order by id) from families), '[]'::json) as families,
            (select count(*)::int from access) + (select count(*)::int from refresh) as tokens`,
    [
      at,
      at,
      changes.map((c) => c.membership.id),
      changes.map((c) => c.role),
      changes.map((c) => c.state),
      at,
      REVOCATION_REASON,
      at,
      revoked,
      tenant.organizationId,
      at,
      REVOCATION_REASON,
      at,
      revoked,
      tenant.organizationId,
      at,
      at,
      at,
      at,
    ],
  );
  if (row === undefined || Number(row['changed']) !== changes.length) abort('version_conflict');
  const sessions = jsonIds(row['sessions']);
  const families = jsonIds(row['families']);
  context.changes += changes.length + sessions.length + families.length + Number(row['tokens']);
  for (const change of changes) record(context, 'membership.changed', { type: 'membership', id: change.membership.id });
  for (const id of sessions) record(context, 'session.revoked', { type: 'session', id });
  for (const id of families) record(context, 'device_token.revoked', { type: 'device_grant', id });
}
