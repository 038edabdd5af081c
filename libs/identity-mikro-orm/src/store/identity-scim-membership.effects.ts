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
 * Inserts every queued audit event, a thousand rows per statement.
 *
 * @example
 * await flushAudits(context);
 */
export async function flushAudits(context: ScimBatchContext): Promise<void> {
  for (let start = 0; start < context.audits.length; start += AUDIT_CHUNK)
    await insertRows(context.sql, 'audit_events', context.audits.slice(start, start + AUDIT_CHUNK).map(auditColumns));
}

interface Standing {
  readonly scimUserId: string;
  readonly userId: string;
  /** Active SCIM user and `active = true`. */
  readonly wanted: boolean;
  readonly rank: number;
}

/**
 * The standing of the given SCIM users of the tenant in one set-based statement: whether their
 * membership should be active, and the highest rank their active groups map to (0 = `viewer`).
 */
async function standings(context: ScimBatchContext, scimUserIds: readonly string[]): Promise<Standing[]> {
  const rules = context.groupRoles;
  const rows = await context.sql(
    `with rules as (select r.kind, r.value, r.rank from unnest(?::text[], ?::text[], ?::int[]) as r(kind, value, rank))
     select u.id, u.user_id, (u.state = 'active' and u.active) as wanted, coalesce(max(r.rank), 0) as rank
       from ${table('scim_users')} u
       left join ${table('scim_group_members')} m on m.scim_user_id = u.id
       left join ${table('scim_groups')} g on g.id = m.group_id and g.state = 'active'
       left join rules r on g.id is not null
        and ((r.kind = 'display_name' and lower(g.display_name) = lower(r.value))
          or (r.kind = 'external_id' and g.external_id = r.value))
      where u.id = any(?::uuid[]) and u.organization_id = ? and u.provider = ?
      group by u.id, u.user_id, u.state, u.active`,
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
  }));
}

/** The membership each standing asks for, or `null` when it stays as it is. */
function target(
  membership: MembershipRecord,
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

/**
 * Brings the tenant memberships of the given SCIM users in line with their SCIM state and groups
 * (identity-model §5.10), set-based: the users' active device token families of the organization,
 * then the organization's active owners and the users' memberships are locked `for update` in id order, the last-owner rule is checked on the final state, changed
 * memberships are written in one statement, and every membership that left `active` or changed
 * role loses its federated sessions and device token families of this organization. Queues
 * `membership.changed`, `session.revoked` and `device_token.revoked` audits.
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
  const { sql, tenant, at } = context;
  const wanted = await standings(context, ids);
  const userIds = wanted.map((standing) => standing.userId);
  // Device commands lock a family before its membership: take the tenant families of these users
  // first too, so a refresh racing this batch queues instead of deadlocking.
  await sql(
    `select id from ${table('device_token_families')}
      where user_id = any(?::uuid[]) and organization_id = ? and state = 'active'
      order by id
      for update`,
    [userIds, tenant.organizationId],
  );
  const locked = (
    await sql(
      `select ${allColumns('memberships')} from ${table('memberships')}
        where organization_id = ? and ((role = 'owner' and state = 'active') or user_id = any(?::uuid[]))
        order by id
        for update`,
      [tenant.organizationId, userIds],
    )
  ).map(membershipFromRow);
  const byUser = new Map(locked.map((membership) => [membership.userId, membership]));
  const changes: { membership: MembershipRecord; role: string; state: string }[] = [];
  for (const standing of wanted) {
    const membership = byUser.get(standing.userId);
    const next = membership === undefined ? null : target(membership, standing, reactivated.has(standing.scimUserId));
    if (membership !== undefined && next !== null) changes.push({ membership, ...next });
  }
  if (changes.length === 0) return;
  const isOwner = (m: { role: string; state: string }) => m.role === 'owner' && m.state === 'active';
  const changed = new Map(changes.map((change) => [change.membership.id, change]));
  const ownersBefore = locked.filter(isOwner).length;
  const ownersAfter = locked.filter((m) => isOwner(changed.get(m.id) ?? m)).length;
  if (ownersBefore > 0 && ownersAfter === 0) abort('last_owner');

  const updated = await sql(
    `update ${table('memberships')} m
        set role = v.role, state = v.state,
            removed_at = case when v.state = 'removed' then coalesce(m.removed_at, ?::timestamptz) else null end,
            updated_at = ?, version = m.version + 1
       from unnest(?::uuid[], ?::text[], ?::text[]) as v(id, role, state)
      where m.id = v.id
    returning m.id`,
    [at, at, changes.map((c) => c.membership.id), changes.map((c) => c.role), changes.map((c) => c.state)],
  );
  if (updated.length !== changes.length) abort('version_conflict');
  context.changes += changes.length;
  for (const change of changes) record(context, 'membership.changed', { type: 'membership', id: change.membership.id });
  const revoked = changes
    .filter((c) => c.membership.state === 'active' && (c.state !== 'active' || c.role !== c.membership.role))
    .map((c) => c.membership.userId);
  await revokeTenantAccess(context, revoked);
}

/**
 * Revokes the active federated sessions of this organization and the active device token families
 * of this organization (with their tokens) of `userIds` — never the user epoch, passkey sessions
 * or other organizations. Set-based: the same statements for one user or a thousand.
 */
async function revokeTenantAccess(context: ScimBatchContext, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  const { sql, tenant, at } = context;
  const sessions = await sql(
    `update ${table('sessions')}
        set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
      where user_id = any(?::uuid[]) and state = 'active' and federation_organization_id = ?
    returning id`,
    [at, REVOCATION_REASON, at, userIds, tenant.organizationId],
  );
  const families = await sql(
    `update ${table('device_token_families')}
        set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
      where user_id = any(?::uuid[]) and organization_id = ? and state = 'active'
    returning id, device_grant_id`,
    [at, REVOCATION_REASON, at, userIds, tenant.organizationId],
  );
  if (families.length > 0) {
    const familyIds = families.map((row) => text(row, 'id'));
    const access = await sql(
      `update ${table('device_access_tokens')}
          set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
        where family_id = any(?::uuid[]) and state = 'active'
      returning id`,
      [at, at, familyIds],
    );
    const refresh = await sql(
      `update ${table('device_refresh_tokens')}
          set state = case when state = 'active' then 'revoked' else state end,
              revoked_at = case when state = 'active' then ? else revoked_at end,
              retry_sealed_successor = null, retry_until = null, retry_access_token_id = null,
              updated_at = ?, version = version + 1
        where family_id = any(?::uuid[]) and (state = 'active' or retry_until is not null)
      returning id`,
      [at, at, familyIds],
    );
    context.changes += access.length + refresh.length;
  }
  context.changes += sessions.length + families.length;
  for (const row of sessions) record(context, 'session.revoked', { type: 'session', id: text(row, 'id') });
  for (const row of families)
    record(context, 'device_token.revoked', { type: 'device_grant', id: text(row, 'device_grant_id') });
}
