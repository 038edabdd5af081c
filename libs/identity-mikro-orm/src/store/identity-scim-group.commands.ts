import type { ScimBatchResult, ScimMutation } from '@tessera/identity';
import { abort, insertRow, isUuid, table } from './identity-store.gateway.js';
import { integer, optionalText, text } from './identity-row.mappers.js';
import { jsonArray, jsonIds, lockTenantRow } from './identity-scim.rows.js';
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

/**
 * For a member delta on `groupId`, in one statement: which of `named` are members now, which are
 * active SCIM users of the tenant (locked `for share` so none is deleted before this batch
 * commits), and the group's size.
 */
async function namedMembers(
  context: ScimBatchContext,
  groupId: string,
  named: readonly string[],
): Promise<{ members: Set<string>; active: Set<string>; size: number }> {
  const ids = named.filter(isUuid);
  const { organizationId, provider } = context.tenant;
  const [row] = await context.sql(
    `with active as (
       select id from ${table('scim_users')}
        where id = any(?::uuid[]) and organization_id = ? and provider = ? and state = 'active'
        for share)
     select json_build_array(
              (select count(*) from ${table('scim_group_members')} where group_id = ?),
              coalesce((select json_agg(scim_user_id) from ${table('scim_group_members')}
                         where group_id = ? and scim_user_id = any(?::uuid[])), '[]'::json),
              coalesce((select json_agg(id) from active), '[]'::json)) as info`,
    [ids, organizationId, provider, groupId, groupId, ids],
  );
  const [size, members, active] = jsonArray(row?.['info']);
  return { size: Number(size), members: new Set(jsonIds(members)), active: new Set(jsonIds(active)) };
}

/** Most members a group may have (a larger group → `invalid_transition`, 400 `invalidValue`). */
export const SCIM_GROUP_MEMBER_CAP = 10_000;

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
 * A group change. Member additions and removals without a precondition (what Okta and Entra send)
 * take the group row's exclusive lock only for the version bump at the end (see
 * {@link changeGroupMembers}), so PATCHes of one group's members proceed side by side; a rename, a
 * member list replacement or an `If-Match` version locks the group first (see
 * {@link changeLockedGroup}).
 *
 * @example
 * await changeScimGroup(context, { kind: 'changeGroup', groupId, expectedVersion: 1, steps: [{ kind: 'add', memberIds: [id] }] });
 */
export function changeScimGroup(
  context: ScimBatchContext,
  mutation: GroupMutation<'changeGroup'>,
): Promise<ScimBatchResult> {
  const delta = mutation.steps.every((step) => step.kind === 'add' || step.kind === 'remove');
  return delta && mutation.expectedVersion === null
    ? changeGroupMembers(context, mutation)
    : changeLockedGroup(context, mutation);
}

/**
 * Member additions and removals (unions and exact removals: the last step naming a member decides
 * whether it ends in the group). The group is held `for key share` (a rename, replacement or delete
 * of it waits, member deltas do not), the added users `for share`; rows are inserted and deleted
 * as named, the changed members' roles recomputed, and only then is the group row updated (version
 * + 1): concurrent deltas of one group queue only for that last statement. The member cap is
 * checked after it, when every earlier delta has committed.
 */
async function changeGroupMembers(
  context: ScimBatchContext,
  mutation: GroupMutation<'changeGroup'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  if (!isUuid(mutation.groupId)) abort('not_found');
  const last = new Map<string, 'add' | 'remove'>();
  for (const step of mutation.steps)
    if (step.kind === 'add' || step.kind === 'remove') for (const id of step.memberIds) last.set(id, step.kind);
  const adds = [...last].filter(([, kind]) => kind === 'add').map(([id]) => id);
  const removes = [...last].filter(([id, kind]) => kind === 'remove' && isUuid(id)).map(([id]) => id);
  if (!adds.every(isUuid)) abort('invalid_transition');
  // The group first (key share), then the users to add (share): the order group deletes and user
  // deletes take them in. The one-time filter runs the group's lock before any user is read.
  const [row] = await sql(
    `with grp as (
       select version from ${table('scim_groups')}
        where id = ? and organization_id = ? and provider = ? and state = 'active'
        for key share),
     added as (
       select id from ${table('scim_users')}
        where exists (select 1 from grp)
          and id = any(?::uuid[]) and organization_id = ? and provider = ? and state = 'active'
        for share)
     select (select version from grp) as version, (select count(*)::int from added) as added`,
    [mutation.groupId, tenant.organizationId, tenant.provider, adds, tenant.organizationId, tenant.provider],
  );
  if (row === undefined || row['version'] === null) abort('not_found');
  if (integer(row, 'added') !== adds.length) abort('invalid_transition');
  const [changed] = await sql(
    `with removed as (
       delete from ${table('scim_group_members')} where group_id = ? and scim_user_id = any(?::uuid[])
       returning scim_user_id),
     inserted as (
       insert into ${table('scim_group_members')} (group_id, scim_user_id, organization_id, provider, added_at)
       select ?, member, ?, ?, ? from unnest(?::uuid[]) as member
       on conflict do nothing
       returning scim_user_id)
     select coalesce((select json_agg(scim_user_id) from removed), '[]'::json) as removed,
            coalesce((select json_agg(scim_user_id) from inserted), '[]'::json) as inserted`,
    [mutation.groupId, removes, mutation.groupId, tenant.organizationId, tenant.provider, at, adds],
  );
  const removed = jsonIds(changed?.['removed']);
  const inserted = jsonIds(changed?.['inserted']);
  if (removed.length === 0 && inserted.length === 0)
    return {
      replayed: false,
      status: 200,
      resourceType: 'group',
      resourceId: mutation.groupId,
      version: integer(row, 'version'),
    };
  context.changes += removed.length + inserted.length;
  await reconcileMemberships(context, [...inserted, ...removed]);
  const [bumped] = await sql(
    `update ${table('scim_groups')} set updated_at = ?, version = version + 1
      where id = ? and state = 'active' returning version`,
    [at, mutation.groupId],
  );
  if (bumped === undefined) abort('not_found');
  context.changes += 1;
  if (inserted.length > removed.length) {
    // Under the group's row lock every earlier delta has committed: this count is the group's size.
    const [size] = await sql(`select count(*)::int as size from ${table('scim_group_members')} where group_id = ?`, [
      mutation.groupId,
    ]);
    if (integer(size ?? abort('internal'), 'size') > SCIM_GROUP_MEMBER_CAP) abort('invalid_transition');
  }
  return {
    replayed: false,
    status: 200,
    resourceType: 'group',
    resourceId: mutation.groupId,
    version: integer(bumped, 'version'),
  };
}

/**
 * The steps applied in order to the locked group (members as a set: additions are unions,
 * removals exact), then written as one difference; the version moves by one when anything changed.
 * A rename or external id change recomputes every member's role, a membership change the role of
 * the members added or removed.
 */
async function changeLockedGroup(
  context: ScimBatchContext,
  mutation: GroupMutation<'changeGroup'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  const group = await lockTenantRow(sql, 'scim_groups', tenant, mutation.groupId, mutation.expectedVersion);
  // Only the members the steps name are read, unless the whole list is replaced (or the group is
  // relabelled, which recomputes every member): a one-member PATCH of a large group stays small.
  const whole = mutation.steps.some((step) => step.kind !== 'add' && step.kind !== 'remove');
  const named = [...new Set(mutation.steps.flatMap((step) => ('memberIds' in step ? step.memberIds : [])))];
  const delta = whole ? null : await namedMembers(context, mutation.groupId, named);
  const before =
    delta?.members ??
    new Set(
      (await sql(`select scim_user_id from ${table('scim_group_members')} where group_id = ?`, [mutation.groupId])).map(
        (row) => text(row, 'scim_user_id'),
      ),
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
  if (delta === null) {
    await activeMembers(context, toAdd);
    if (members.size > SCIM_GROUP_MEMBER_CAP) abort('invalid_transition');
  } else {
    if (!toAdd.every((id) => delta.active.has(id))) abort('invalid_transition');
    if (delta.size + toAdd.length - toRemove.length > SCIM_GROUP_MEMBER_CAP) abort('invalid_transition');
  }
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
