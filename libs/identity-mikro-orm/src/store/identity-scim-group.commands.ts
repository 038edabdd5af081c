import type { ScimBatchResult, ScimMutation } from '@tessera/identity';
import { abort, insertRow, isUuid, table } from './identity-store.gateway.js';
import { integer, optionalText, text } from './identity-row.mappers.js';
import { lockTenantRow } from './identity-scim.rows.js';
import { reconcileMemberships, type ScimBatchContext } from './identity-scim-membership.effects.js';

type GroupMutation<K extends ScimMutation['kind']> = Extract<ScimMutation, { kind: K }>;

/**
 * `ids` (deduplicated) when each is an active SCIM user of the tenant, locked `for share` so none
 * is deleted before this batch commits; else `invalid_transition`.
 */
async function activeMembers(context: ScimBatchContext, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (!unique.every(isUuid)) abort('invalid_transition');
  const found = await context.sql(
    `select id from ${table('scim_users')}
      where id = any(?::uuid[]) and organization_id = ? and provider = ? and state = 'active'
      for share`,
    [unique, context.tenant.organizationId, context.tenant.provider],
  );
  if (found.length !== unique.length) abort('invalid_transition');
  return unique;
}

/** Most members a group may have (a larger group → `invalid_transition`, 400 `invalidValue`). */
export const SCIM_GROUP_MEMBER_CAP = 10_000;

/** `invalid_transition` when the group would end with more than {@link SCIM_GROUP_MEMBER_CAP} members. */
async function requireMemberCap(
  context: ScimBatchContext,
  groupId: string,
  finalSize: number | null,
  growth: number,
): Promise<void> {
  if (finalSize !== null) {
    if (finalSize > SCIM_GROUP_MEMBER_CAP) abort('invalid_transition');
    return;
  }
  if (growth <= 0) return;
  const [row] = await context.sql(`select count(*)::int as size from ${table('scim_group_members')} where group_id = ?`, [
    groupId,
  ]);
  if (Number(row?.['size'] ?? 0) + growth > SCIM_GROUP_MEMBER_CAP) abort('invalid_transition');
}

async function addMembers(context: ScimBatchContext, groupId: string, memberIds: readonly string[]): Promise<void> {
  if (memberIds.length === 0) return;
  const { sql, tenant, at } = context;
  await sql(
    `insert into ${table('scim_group_members')} (group_id, scim_user_id, organization_id, provider, added_at)
     select ?, member, ?, ?, ? from unnest(?::uuid[]) as member
     on conflict do nothing`,
    [groupId, tenant.organizationId, tenant.provider, at, memberIds],
  );
  context.changes += memberIds.length;
}

/**
 * A new active group (version 1) with its members; each member's role is recomputed.
 *
 * @example
 * const result = await createScimGroup(context, { kind: 'createGroup', groupId, displayName: 'Admins', externalId: null, memberIds: [] });
 */
export async function createScimGroup(
  context: ScimBatchContext,
  mutation: GroupMutation<'createGroup'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  if (!isUuid(mutation.groupId)) abort('invalid_transition');
  const members = await activeMembers(context, mutation.memberIds);
  await insertRow(sql, 'scim_groups', {
    id: mutation.groupId,
    organization_id: tenant.organizationId,
    provider: tenant.provider,
    external_id: mutation.externalId,
    display_name: mutation.displayName,
    state: 'active',
    created_at: at,
    updated_at: at,
    version: 1,
  });
  context.changes += 1;
  await addMembers(context, mutation.groupId, members);
  await reconcileMemberships(context, members);
  return { replayed: false, status: 201, resourceType: 'group', resourceId: mutation.groupId, version: 1 };
}

/**
 * The steps applied in order to the locked group (members as a set: additions are unions,
 * removals exact), then written as one difference; the version moves by one when anything changed.
 * A rename or external id change recomputes every member's role, a membership change the role of
 * the members added or removed.
 *
 * @example
 * await changeScimGroup(context, { kind: 'changeGroup', groupId, expectedVersion: 1, steps: [{ kind: 'add', memberIds: [id] }] });
 */
export async function changeScimGroup(
  context: ScimBatchContext,
  mutation: GroupMutation<'changeGroup'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  const group = await lockTenantRow(sql, 'scim_groups', tenant, mutation.groupId, mutation.expectedVersion);
  // Only the members the steps name are read, unless the whole list is replaced (or the group is
  // relabelled, which recomputes every member): a one-member PATCH of a large group stays small.
  const whole = mutation.steps.some((step) => step.kind !== 'add' && step.kind !== 'remove');
  const named = [...new Set(mutation.steps.flatMap((step) => ('memberIds' in step ? step.memberIds : [])))];
  const before = new Set(
    (
      await sql(
        whole
          ? `select scim_user_id from ${table('scim_group_members')} where group_id = ?`
          : `select scim_user_id from ${table('scim_group_members')} where group_id = ? and scim_user_id = any(?::uuid[])`,
        whole ? [mutation.groupId] : [mutation.groupId, named.filter(isUuid)],
      )
    ).map((row) => text(row, 'scim_user_id')),
  );
  let displayName = text(group, 'display_name');
  let externalId = optionalText(group, 'external_id');
  const members = new Set(before);
  for (const step of mutation.steps) {
    if (step.kind === 'rename') displayName = step.displayName;
    else if (step.kind === 'externalId') externalId = step.externalId;
    else if (step.kind === 'remove') for (const id of step.memberIds) members.delete(id);
    else {
      if (step.kind === 'replaceMembers') members.clear();
      for (const id of step.memberIds) members.add(id);
    }
  }
  const toAdd = [...members].filter((id) => !before.has(id));
  const toRemove = [...before].filter((id) => !members.has(id));
  await activeMembers(context, toAdd);
  await requireMemberCap(context, mutation.groupId, whole ? members.size : null, toAdd.length - toRemove.length);
  const relabelled = displayName !== text(group, 'display_name') || externalId !== optionalText(group, 'external_id');
  if (!relabelled && toAdd.length === 0 && toRemove.length === 0)
    return {
      replayed: false,
      status: 200,
      resourceType: 'group',
      resourceId: mutation.groupId,
      version: integer(group, 'version'),
    };

  const [row] = await sql(
    `update ${table('scim_groups')} set display_name = ?, external_id = ?, updated_at = ?, version = version + 1
      where id = ? returning version`,
    [displayName, externalId, at, mutation.groupId],
  );
  context.changes += 1;
  if (toRemove.length > 0) {
    await sql(`delete from ${table('scim_group_members')} where group_id = ? and scim_user_id = any(?::uuid[])`, [
      mutation.groupId,
      toRemove,
    ]);
    context.changes += toRemove.length;
  }
  await addMembers(context, mutation.groupId, toAdd);
  await reconcileMemberships(context, relabelled ? [...members, ...toRemove] : [...toAdd, ...toRemove]);
  return {
    replayed: false,
    status: 200,
    resourceType: 'group',
    resourceId: mutation.groupId,
    version: integer(row ?? abort('internal'), 'version'),
  };
}

/**
 * The group → `deleted`, its members dropped and their roles recomputed.
 *
 * @example
 * await deleteScimGroup(context, { kind: 'deleteGroup', groupId, expectedVersion: null });
 */
export async function deleteScimGroup(
  context: ScimBatchContext,
  mutation: GroupMutation<'deleteGroup'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  await lockTenantRow(sql, 'scim_groups', tenant, mutation.groupId, mutation.expectedVersion);
  await sql(
    `update ${table('scim_groups')} set state = 'deleted', updated_at = ?, version = version + 1 where id = ?`,
    [at, mutation.groupId],
  );
  const left = await sql(`delete from ${table('scim_group_members')} where group_id = ? returning scim_user_id`, [
    mutation.groupId,
  ]);
  context.changes += 1 + left.length;
  await reconcileMemberships(
    context,
    left.map((row) => text(row, 'scim_user_id')),
  );
  return { replayed: false, status: 204, resourceType: 'group', resourceId: mutation.groupId, version: null };
}
