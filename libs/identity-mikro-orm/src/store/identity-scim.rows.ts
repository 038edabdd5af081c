import type {
  ScimConnectionRecord,
  ScimConnectionTokenRecord,
  ScimEmail,
  ScimGroupRecord,
  ScimGroupRoleRule,
  ScimTenant,
  ScimUserAttributes,
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
  for (const row of rows) {
    const value = text(row, 'match_value');
    rules.get(text(row, 'connection_id'))?.push({
      match: text(row, 'match_kind') === 'display_name' ? { displayName: value } : { externalId: value },
      role: text(row, 'role') as ScimGroupRoleRule['role'],
    });
  }
  return rules;
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
 * The given `scim_users` rows as records, with their emails read in one statement.
 *
 * @example
 * const users = await scimUsersWithEmails(sql, rows);
 */
export async function scimUsersWithEmails(sql: Sql, rows: readonly Row[]): Promise<ScimUserRecord[]> {
  if (rows.length === 0) return [];
  const emails = new Map<string, ScimEmail[]>(rows.map((row) => [text(row, 'id'), []]));
  const emailRows = await sql(
    `select scim_user_id, value, type, is_primary from ${table('scim_user_emails')}
      where scim_user_id = any(?::uuid[]) order by scim_user_id, position`,
    [[...emails.keys()]],
  );
  for (const row of emailRows)
    emails.get(text(row, 'scim_user_id'))?.push({
      value: text(row, 'value'),
      type: optionalText(row, 'type'),
      primary: flag(row, 'is_primary'),
    });
  return rows.map((row) => scimUserFromRow(row, emails.get(text(row, 'id')) ?? []));
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
