import type { ScimBatchResult, ScimMutation } from '@tessera/identity';
import { abort, insertRow, insertRows, isUuid, table } from './identity-store.gateway.js';
import { membershipColumns, userColumns } from './identity-row.columns.js';
import { integer, text } from './identity-row.mappers.js';
import {
  emailColumns,
  lockTenantRow,
  scimUserAttributeColumns,
  scimUserFromRow,
  userGroupsFromJson,
  userGroupsJson,
} from './identity-scim.rows.js';
import { allColumns } from './identity-row.fields.js';
import { reconcileMemberships, record, type ScimBatchContext } from './identity-scim-membership.effects.js';

type UserMutation<K extends ScimMutation['kind']> = Extract<ScimMutation, { kind: K }>;

async function writeEmails(
  context: ScimBatchContext,
  scimUserId: string,
  emails: UserMutation<'createUser'>['attributes']['emails'],
) {
  if (emails.length === 0) return;
  await insertRows(context.sql, 'scim_user_emails', emailColumns(scimUserId, context.tenant, emails));
  context.changes += emails.length;
}

/**
 * A new identity user (active, no email: SCIM never sets the globally unique address), its SCIM
 * user (version 1) with emails, and its tenant membership (`viewer`, `removed` when created inactive).
 *
 * @example
 * const result = await createScimUser(context, mutation); // { status: 201, version: 1, ... }
 */
export async function createScimUser(
  context: ScimBatchContext,
  mutation: UserMutation<'createUser'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  const { scimUserId, userId, membershipId, userDisplayName, attributes } = mutation;
  if (![scimUserId, userId, membershipId].every(isUuid)) abort('invalid_transition');
  await insertRow(sql, 'users', userColumns({ id: userId, primaryEmail: null, displayName: userDisplayName }, at));
  const row = await insertRow(sql, 'scim_users', {
    id: scimUserId,
    organization_id: tenant.organizationId,
    provider: tenant.provider,
    user_id: userId,
    ...scimUserAttributeColumns(attributes),
    state: 'active',
    created_at: at,
    updated_at: at,
    version: 1,
  });
  await writeEmails(context, scimUserId, attributes.emails);
  const membership = membershipColumns(
    { id: membershipId, organizationId: tenant.organizationId, userId, role: 'viewer' },
    at,
  );
  await insertRow(
    sql,
    'memberships',
    attributes.active ? membership : { ...membership, state: 'removed', removed_at: at },
  );
  context.changes += 3;
  record(context, 'user.created', { type: 'user', id: userId });
  record(context, 'membership.created', { type: 'membership', id: membershipId });
  return {
    replayed: false,
    status: 201,
    resourceType: 'user',
    resourceId: scimUserId,
    version: 1,
    user: scimUserFromRow(row, attributes.emails),
    groups: [],
  };
}

/**
 * Every stored attribute replaced (version + 1), the identity user's display name kept in step, memberships reconciled.
 *
 * @example
 * await replaceScimUser(context, { kind: 'replaceUser', scimUserId, expectedVersion: 1, userDisplayName, attributes });
 */
export async function replaceScimUser(
  context: ScimBatchContext,
  mutation: UserMutation<'replaceUser'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  if (!isUuid(mutation.scimUserId)) abort('not_found');
  const columns = scimUserAttributeColumns(mutation.attributes);
  const names = Object.keys(columns);
  // One statement: the SCIM user locked and compared with the expected version, updated, and its
  // identity user's display name kept in step; the user's groups read for the answer.
  const [row] = await sql(
    `with cur as (
       select id, user_id, active, version from ${table('scim_users')}
        where id = ? and organization_id = ? and provider = ? and state = 'active'
        for update),
     upd as (
       update ${table('scim_users')} s set ${names.map((name) => `"${name}" = ?`).join(', ')}, updated_at = ?,
              version = s.version + 1
         from cur
        where s.id = cur.id and (?::int is null or cur.version = ?::int)
       returning ${allColumns('scim_users', 's')}, cur.active as was_active),
     renamed as (
       update ${table('users')} set display_name = ?, updated_at = ?, version = version + 1
        where id = (select user_id from upd) and display_name <> ? returning id)
     select (select version from cur) as current_version, ${allColumns('scim_users', 'upd')}, upd.was_active, (select count(*)::int from renamed) as renamed,
            ${userGroupsJson('upd')} as groups_json
       from (select 1) as one left join upd on true`,
    [
      mutation.scimUserId,
      tenant.organizationId,
      tenant.provider,
      ...names.map((name) => columns[name]),
      at,
      mutation.expectedVersion,
      mutation.expectedVersion,
      mutation.userDisplayName,
      at,
      mutation.userDisplayName,
    ],
  );
  if (row === undefined || row['current_version'] === null) abort('not_found');
  if (row['id'] === null) abort('version_conflict');
  const keepEmails = mutation.emailsUnchanged === true && mutation.expectedVersion !== null;
  if (!keepEmails) {
    await sql(`delete from ${table('scim_user_emails')} where scim_user_id = ?`, [mutation.scimUserId]);
    await writeEmails(context, mutation.scimUserId, mutation.attributes.emails);
  }
  context.changes += 1 + integer(row, 'renamed');
  const reactivated = row['was_active'] === false && mutation.attributes.active;
  await reconcileMemberships(context, [mutation.scimUserId], new Set(reactivated ? [mutation.scimUserId] : []));
  return {
    replayed: false,
    status: 200,
    resourceType: 'user',
    resourceId: mutation.scimUserId,
    version: integer(row, 'version'),
    user: scimUserFromRow(row, mutation.attributes.emails),
    groups: userGroupsFromJson(mutation.scimUserId, row['groups_json']),
  };
}

/**
 * The SCIM user → `deleted` (the identity user stays), out of every group of the tenant (each such
 * group's version + 1), its membership → `removed`.
 *
 * @example
 * await deleteScimUser(context, { kind: 'deleteUser', scimUserId, expectedVersion: null });
 */
export async function deleteScimUser(
  context: ScimBatchContext,
  mutation: UserMutation<'deleteUser'>,
): Promise<ScimBatchResult> {
  const { sql, tenant, at } = context;
  if (!isUuid(mutation.scimUserId)) abort('not_found');
  // Group changes lock the group before its members: lock this user's groups first too.
  await sql(
    `select id from ${table('scim_groups')}
      where id in (select group_id from ${table('scim_group_members')} where scim_user_id = ?)
        and organization_id = ? and provider = ?
      order by id
      for update`,
    [mutation.scimUserId, tenant.organizationId, tenant.provider],
  );
  await lockTenantRow(sql, 'scim_users', tenant, mutation.scimUserId, mutation.expectedVersion);
  await sql(`update ${table('scim_users')} set state = 'deleted', updated_at = ?, version = version + 1 where id = ?`, [
    at,
    mutation.scimUserId,
  ]);
  const left = await sql(`delete from ${table('scim_group_members')} where scim_user_id = ? returning group_id`, [
    mutation.scimUserId,
  ]);
  if (left.length > 0)
    await sql(`update ${table('scim_groups')} set updated_at = ?, version = version + 1 where id = any(?::uuid[])`, [
      at,
      left.map((member) => text(member, 'group_id')),
    ]);
  context.changes += 1 + left.length * 2;
  await reconcileMemberships(context, [mutation.scimUserId]);
  return { replayed: false, status: 204, resourceType: 'user', resourceId: mutation.scimUserId, version: null };
}
