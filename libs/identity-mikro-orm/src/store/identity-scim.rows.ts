import type {
  ScimConnectionRecord,
  ScimConnectionTokenRecord,
  ScimEmail,
  ScimGroupRecord,
  ScimGroupRoleRule,
  ScimTenant,
  ScimUserAttributes,
  ScimUserGroup,
  ScimUserRecord,
} from '@tessera/identity';
import { abort, isUuid, table, type Row, type Sql } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { digest, instant, integer, optionalInstant, optionalText, text } from './identity-row.mappers.js';

/* Raw rows of the SCIM tables ↔ the port's SCIM records. */

function flag(row: Row, column: string): boolean {
  const value = row[column];
  return typeof value === 'boolean' ? value : abort('internal');
}

/**
 * The stored columns of SCIM user attributes (without ids, state and stamps).
 *
 * @example
 * await insertRow(sql, 'scim_users', { id, ...scimUserAttributeColumns(attributes), state: 'active' });
 */
export function scimUserAttributeColumns(attributes: ScimUserAttributes): Row {
  const { name, enterprise } = attributes;
  return {
    user_name: attributes.userName,
    external_id: attributes.externalId,
    display_name: attributes.displayName,
    nick_name: attributes.nickName,
    title: attributes.title,
    user_type: attributes.userType,
    preferred_language: attributes.preferredLanguage,
    locale: attributes.locale,
    timezone: attributes.timezone,
    name_formatted: name.formatted,
    name_family_name: name.familyName,
    name_given_name: name.givenName,
    name_middle_name: name.middleName,
    name_honorific_prefix: name.honorificPrefix,
    name_honorific_suffix: name.honorificSuffix,
    enterprise_employee_number: enterprise.employeeNumber,
    enterprise_cost_center: enterprise.costCenter,
    enterprise_organization: enterprise.organization,
    enterprise_division: enterprise.division,
    enterprise_department: enterprise.department,
    active: attributes.active,
  };
}

/**
 * A `scim_users` row with its emails (in position order).
 *
 * @example
 * const user = scimUserFromRow(row, []);
 */
export function scimUserFromRow(row: Row, emails: readonly ScimEmail[]): ScimUserRecord {
  const t = (column: string) => optionalText(row, column);
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    provider: text(row, 'provider'),
    userId: text(row, 'user_id'),
    userName: text(row, 'user_name'),
    externalId: t('external_id'),
    displayName: t('display_name'),
    nickName: t('nick_name'),
    title: t('title'),
    userType: t('user_type'),
    preferredLanguage: t('preferred_language'),
    locale: t('locale'),
    timezone: t('timezone'),
    active: flag(row, 'active'),
    name: {
      formatted: t('name_formatted'),
      familyName: t('name_family_name'),
      givenName: t('name_given_name'),
      middleName: t('name_middle_name'),
      honorificPrefix: t('name_honorific_prefix'),
      honorificSuffix: t('name_honorific_suffix'),
    },
    emails,
    enterprise: {
      employeeNumber: t('enterprise_employee_number'),
      costCenter: t('enterprise_cost_center'),
      organization: t('enterprise_organization'),
      division: t('enterprise_division'),
      department: t('enterprise_department'),
    },
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    version: integer(row, 'version'),
  };
}

/**
 * A `scim_groups` row.
 *
 * @example
 * const groups = rows.map(scimGroupFromRow);
 */
export function scimGroupFromRow(row: Row): ScimGroupRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    provider: text(row, 'provider'),
    externalId: optionalText(row, 'external_id'),
    displayName: text(row, 'display_name'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    version: integer(row, 'version'),
  };
}

/**
 * A `scim_connection_tokens` row.
 *
 * @example
 * const token = scimConnectionTokenFromRow(row);
 */
export function scimConnectionTokenFromRow(row: Row): ScimConnectionTokenRecord {
  return {
    id: text(row, 'id'),
    connectionId: text(row, 'connection_id'),
    secretDigest: digest(row, 'digest'),
    state: text(row, 'state') as ScimConnectionTokenRecord['state'],
    createdAt: instant(row, 'created_at'),
    rotatedAt: optionalInstant(row, 'rotated_at'),
  };
}

/**
 * A `scim_connections` row with its rules (in position order).
 *
 * @example
 * const connection = scimConnectionFromRow(row, rules);
 */
export function scimConnectionFromRow(row: Row, groupRoles: readonly ScimGroupRoleRule[]): ScimConnectionRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    providerName: text(row, 'provider_name'),
    groupRoles,
    state: text(row, 'state') as ScimConnectionRecord['state'],
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
    tokenIssuedAt: instant(row, 'token_issued_at'),
    version: integer(row, 'version'),
  };
}

/**
 * The `scim_connection_group_roles` rows of a rule list, positions in declaration order.
 *
 * @example
 * await insertRows(sql, 'scim_connection_group_roles', groupRoleColumns(connectionId, rules));
 */
export function groupRoleColumns(connectionId: string, rules: readonly ScimGroupRoleRule[]): Row[] {
  return rules.map((rule, position) => ({
    connection_id: connectionId,
    position,
    match_kind: 'displayName' in rule.match ? 'display_name' : 'external_id',
    match_value: 'displayName' in rule.match ? rule.match.displayName : rule.match.externalId,
    role: rule.role,
  }));
}

/**
 * The rules of the given connections, by connection id, in position order (one statement).
 *
 * @example
 * const rules = (await readGroupRoles(sql, [connectionId])).get(connectionId) ?? [];
 */
export async function readGroupRoles(
  sql: Sql,
  connectionIds: readonly string[],
): Promise<Map<string, ScimGroupRoleRule[]>> {
  const rules = new Map<string, ScimGroupRoleRule[]>(connectionIds.map((id) => [id, []]));
  if (connectionIds.length === 0) return rules;
  const rows = await sql(
    `select connection_id, match_kind, match_value, role from ${table('scim_connection_group_roles')}
      where connection_id = any(?::uuid[]) order by connection_id, position`,
    [connectionIds],
  );
  for (const row of rows)
    rules
      .get(text(row, 'connection_id'))
      ?.push(groupRoleRule(text(row, 'match_kind'), text(row, 'match_value'), text(row, 'role')));
  return rules;
}

function groupRoleRule(kind: string, value: string, role: string): ScimGroupRoleRule {
  return {
    match: kind === 'display_name' ? { displayName: value } : { externalId: value },
    role: role as ScimGroupRoleRule['role'],
  };
}

/**
 * A select-list expression: the active groups of its tenant that the `scim_users` row aliased
 * `alias` belongs to, as a JSON array ordered as `listScimUserGroups` orders them (read back with
 * {@link userGroupsFromJson}).
 *
 * @example
 * sql(`select u.id, ${userGroupsJson('u')} as groups_json from ...`);
 */
export function userGroupsJson(alias: string): string {
  return `coalesce((select json_agg(json_build_array(g.id, g.display_name) order by g.display_name, g.id)
    from ${table('scim_group_members')} m join ${table('scim_groups')} g on g.id = m.group_id
   where m.scim_user_id = ${alias}.id and g.organization_id = ${alias}.organization_id
     and g.provider = ${alias}.provider and g.state = 'active'), '[]'::json)`;
}

/**
 * The groups of `userId` from a {@link userGroupsJson} column.
 *
 * @example
 * const groups = userGroupsFromJson(scimUserId, row['groups_json']);
 */
export function userGroupsFromJson(userId: string, value: unknown): ScimUserGroup[] {
  return jsonArray(value).map((item: unknown) => {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[1] !== 'string') abort('internal');
    return { userId, groupId: item[0], display: item[1] };
  });
}

/**
 * A select-list expression: the rules of the `scim_connections` row aliased `alias`, as a JSON
 * array in position order (read back with {@link groupRolesFromJson}).
 *
 * @example
 * sql(`select c.*, ${groupRolesJson('c')} as rules_json from ...`);
 */
export function groupRolesJson(alias: string): string {
  return `coalesce((select json_agg(json_build_array(r.match_kind, r.match_value, r.role) order by r.position)
    from ${table('scim_connection_group_roles')} r where r.connection_id = ${alias}.id), '[]'::json)`;
}

/**
 * The rules of a {@link groupRolesJson} column (the driver hands JSON back parsed or as text).
 *
 * @example
 * const rules = groupRolesFromJson(row['rules_json']);
 */
export function groupRolesFromJson(value: unknown): ScimGroupRoleRule[] {
  return jsonArray(value).map((item: unknown) => {
    if (!Array.isArray(item) || !item.every((part) => typeof part === 'string') || item.length !== 3) abort('internal');
    return groupRoleRule(item[0] as string, item[1] as string, item[2] as string);
  });
}

/**
 * The connection `id` of the organization with its rules, optionally locked `for update`, or `null`.
 *
 * @example
 * const connection = await readConnection(sql, organizationId, connectionId, true);
 */
export async function readConnection(
  sql: Sql,
  organizationId: string,
  connectionId: string,
  lock = false,
): Promise<ScimConnectionRecord | null> {
  const [row] = await sql(
    `select ${allColumns('scim_connections')} from ${table('scim_connections')}
      where id = ? and organization_id = ?${lock ? ' for update' : ''}`,
    [connectionId, organizationId],
  );
  if (row === undefined) return null;
  return scimConnectionFromRow(row, (await readGroupRoles(sql, [connectionId])).get(connectionId) ?? []);
}

/**
 * The `scim_user_emails` rows of one user.
 *
 * @example
 * await insertRows(sql, 'scim_user_emails', emailColumns(scimUserId, tenant, attributes.emails));
 */
export function emailColumns(scimUserId: string, tenant: ScimTenant, emails: readonly ScimEmail[]): Row[] {
  return emails.map((email, position) => ({
    scim_user_id: scimUserId,
    position,
    organization_id: tenant.organizationId,
    provider: tenant.provider,
    value: email.value,
    type: email.type,
    is_primary: email.primary,
  }));
}

/**
 * A JSON array column (`json_agg`, `json_build_array`) as the driver hands it back: parsed, or as
 * text. Anything else is `internal`.
 *
 * @example
 * const [size, members] = jsonArray(row['info']);
 */
export function jsonArray(value: unknown): unknown[] {
  const items: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(items) ? items : abort('internal');
}

/**
 * A JSON array of ids (`json_agg(id)`) as strings.
 *
 * @example
 * const removed = jsonIds(row['removed']);
 */
export function jsonIds(value: unknown): string[] {
  return jsonArray(value).map(String);
}

/**
 * A select-list expression: the emails of the `scim_users` row aliased `alias`, as a JSON array in
 * position order (read back with {@link emailsFromJson}).
 *
 * @example
 * sql(`select u.*, ${emailsJson('u')} as emails_json from ...`);
 */
export function emailsJson(alias: string): string {
  return `coalesce((select json_agg(json_build_array(e.value, e.type, e.is_primary) order by e.position)
    from ${table('scim_user_emails')} e where e.scim_user_id = ${alias}.id), '[]'::json)`;
}

/**
 * The emails of an {@link emailsJson} column (the driver hands JSON back parsed or as text).
 *
 * @example
 * const emails = emailsFromJson(row['emails_json']);
 */
export function emailsFromJson(value: unknown): ScimEmail[] {
  return jsonArray(value).map((item: unknown) => {
    if (!Array.isArray(item) || typeof item[0] !== 'string') abort('internal');
    return { value: item[0], type: typeof item[1] === 'string' ? item[1] : null, primary: item[2] === true };
  });
}

/**
 * The tenant's active row `id` of `scim_users` or `scim_groups`, locked `for update`, at
 * `expectedVersion` when given: `not_found` when missing (or another tenant's), else `version_conflict`.
 *
 * @example
 * const row = await lockTenantRow(sql, 'scim_users', tenant, scimUserId, expectedVersion);
 */
export async function lockTenantRow(
  sql: Sql,
  tableName: 'scim_users' | 'scim_groups',
  tenant: ScimTenant,
  id: string,
  expectedVersion: number | null,
): Promise<Row> {
  if (!isUuid(id)) abort('not_found');
  const [row] = await sql(
    `select ${allColumns(tableName)} from ${table(tableName)}
      where id = ? and organization_id = ? and provider = ? and state = 'active'
      for update`,
    [id, tenant.organizationId, tenant.provider],
  );
  if (row === undefined) abort('not_found');
  if (expectedVersion !== null && integer(row, 'version') !== expectedVersion) abort('version_conflict');
  return row;
}
