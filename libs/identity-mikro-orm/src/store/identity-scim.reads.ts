import type { IdentityScimReads, ScimListPage, ScimReceiptInput, ScimTenant } from '@tessera/identity';
import { receiptOutcome } from './identity-scim.commands.js';
import { isUuid, table, type Row, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns, ORGANIZATION_FIELDS, prefixedFields } from './identity-row.fields.js';
import { organizationFromRow, text, unprefix } from './identity-row.mappers.js';
import {
  readConnection,
  readGroupRoles,
  scimConnectionFromRow,
  scimConnectionTokenFromRow,
  scimGroupFromRow,
  emailsFromJson,
  emailsJson,
  groupRolesFromJson,
  groupRolesJson,
  userGroupsFromJson,
  userGroupsJson,
  scimUserFromRow,
} from './identity-scim.rows.js';
import {
  scimGroupFilterSql,
  scimGroupOrderSql,
  scimUserFilterSql,
  scimUserOrderSql,
} from './identity-scim-filter.sql.js';
import { SCIM_CONNECTION_FIELDS, SCIM_CONNECTION_TOKEN_FIELDS } from './identity-scim.fields.js';

type Reads = IdentityScimReads;

/** The WHERE fragment confining `alias` (a `scim_users` or `scim_groups` alias) to the tenant's active rows. */
function tenantScope(tenant: ScimTenant, alias: string): { sql: string; params: unknown[] } {
  return {
    sql: `${alias}.organization_id = ? and ${alias}.provider = ? and ${alias}.state = 'active'`,
    params: [tenant.organizationId, tenant.provider],
  };
}

/**
 * One page (`count` rows from one-based `startIndex`) and the total over the same WHERE, in one
 * statement (the total as a window count; a separate count only for an empty page past the
 * start). `extra`: select-list expressions over the page's rows (same `alias`), evaluated for the
 * page's rows only; the page is ordered again outside, as a subquery's order is not kept.
 */
async function page(
  sql: Sql,
  tableName: 'scim_users' | 'scim_groups',
  alias: string,
  where: { sql: string; params: unknown[]; filtered: boolean },
  orderBy: string,
  window: { startIndex: number; count: number },
  extra = '',
): Promise<{ totalResults: number; rows: Row[] }> {
  const from = `from ${table(tableName)} ${alias} where ${where.sql}`;
  // A client's filter makes the statement text: unnamed, so filters never pile up as prepared statements.
  const mode = where.filtered ? 'unnamed' : 'named';
  const count = async () => {
    const [total] = await sql(`select count(*)::int as total ${from}`, where.params, mode);
    return Number(total?.['total'] ?? 0);
  };
  if (window.count <= 0) return { totalResults: await count(), rows: [] };
  const offset = Math.max(0, window.startIndex - 1);
  const rows = await sql(
    `select ${allColumns(tableName, alias)}, ${alias}.scim_total${extra} from (
       select ${allColumns(tableName, alias)}, count(*) over () as scim_total ${from}
        order by ${orderBy} limit ? offset ?) ${alias}
      order by ${orderBy}`,
    [...where.params, window.count, offset],
    mode,
  );
  if (rows.length > 0) return { totalResults: Number(rows[0]!['scim_total']), rows };
  return { totalResults: offset === 0 ? 0 : await count(), rows: [] };
}

/** `tenant scope and (filter)`. */
function scoped(tenant: ScimTenant, alias: string, filter: { sql: string; params: readonly unknown[] } | null) {
  const scope = tenantScope(tenant, alias);
  return filter === null
    ? { ...scope, filtered: false }
    : { sql: `${scope.sql} and (${filter.sql})`, params: [...scope.params, ...filter.params], filtered: true };
}

/**
 * Reads of SCIM (connections, tokens, users, groups, members), each confined to one organization
 * or tenant; ids that are not UUIDs match nothing.
 *
 * @example
 * const page = await new IdentityScimReadQueries(gateway).queryScimUsers(tenant, { filter: null, sortBy: null, sortOrder: 'ascending', startIndex: 1, count: 100 });
 */
export class IdentityScimReadQueries implements Reads {
  constructor(private readonly gateway: StoreGateway) {}

  findScimConnectionGrant(tokenId: string): ReturnType<Reads['findScimConnectionGrant']> {
    if (!isUuid(tokenId)) return Promise.resolve(null);
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select ${prefixedFields('t', SCIM_CONNECTION_TOKEN_FIELDS, 't_')}, ${prefixedFields('c', SCIM_CONNECTION_FIELDS, 'c_')},
                ${prefixedFields('o', ORGANIZATION_FIELDS, 'o_')}, ${groupRolesJson('c')} as rules_json
           from ${table('scim_connection_tokens')} t
           join ${table('scim_connections')} c on c.id = t.connection_id
           join ${table('organizations')} o on o.id = c.organization_id
          where t.id = ?`,
        [tokenId],
      );
      if (row === undefined) return null;
      // The token, its connection with the rules and the organization in one statement.
      return {
        token: scimConnectionTokenFromRow(unprefix(row, 't_')),
        connection: scimConnectionFromRow(unprefix(row, 'c_'), groupRolesFromJson(row['rules_json'])),
        organization: organizationFromRow(unprefix(row, 'o_')),
      };
    });
  }

  listScimConnections(organizationId: string): ReturnType<Reads['listScimConnections']> {
    if (!isUuid(organizationId)) return Promise.resolve([]);
    return this.gateway.read(async (sql) => {
      const rows = await sql(
        `select ${allColumns('scim_connections')} from ${table('scim_connections')}
          where organization_id = ? order by created_at, id`,
        [organizationId],
      );
      const rules = await readGroupRoles(
        sql,
        rows.map((row) => text(row, 'id')),
      );
      return rows.map((row) => scimConnectionFromRow(row, rules.get(text(row, 'id')) ?? []));
    });
  }

  findScimConnection(organizationId: string, connectionId: string): ReturnType<Reads['findScimConnection']> {
    if (!isUuid(organizationId) || !isUuid(connectionId)) return Promise.resolve(null);
    return this.gateway.read((sql) => readConnection(sql, organizationId, connectionId));
  }

  findScimUser(tenant: ScimTenant, id: string): ReturnType<Reads['findScimUser']> {
    if (!isUuid(id) || !isUuid(tenant.organizationId)) return Promise.resolve(null);
    return this.gateway.read(async (sql) => {
      const scope = tenantScope(tenant, 'u');
      // The user and its emails in one statement.
      const [row] = await sql(
        `select ${allColumns('scim_users', 'u')}, ${emailsJson('u')} as emails_json
           from ${table('scim_users')} u where u.id = ? and ${scope.sql}`,
        [id, ...scope.params],
      );
      return row === undefined ? null : scimUserFromRow(row, emailsFromJson(row['emails_json']));
    });
  }

  queryScimUsers(
    tenant: ScimTenant,
    query: Parameters<Reads['queryScimUsers']>[1],
    withGroups = false,
  ): ReturnType<Reads['queryScimUsers']> {
    if (!isUuid(tenant.organizationId)) return Promise.resolve({ totalResults: 0, resources: [], groups: [] });
    return this.gateway.read(async (sql) => {
      const where = scoped(tenant, 'u', query.filter === null ? null : scimUserFilterSql(query.filter, 'u'));
      const orderBy =
        query.sortBy === null ? 'u.created_at, u.id' : scimUserOrderSql(query.sortBy, query.sortOrder, 'u');
      const { totalResults, rows } = await page(
        sql,
        'scim_users',
        'u',
        where,
        orderBy,
        query,
        `, ${emailsJson('u')} as emails_json${withGroups ? `, ${userGroupsJson('u')} as groups_json` : ''}`,
      );
      return {
        totalResults,
        resources: rows.map((row) => scimUserFromRow(row, emailsFromJson(row['emails_json']))),
        groups: withGroups ? rows.flatMap((row) => userGroupsFromJson(text(row, 'id'), row['groups_json'])) : [],
      };
    });
  }

  findScimGroup(tenant: ScimTenant, id: string): ReturnType<Reads['findScimGroup']> {
    if (!isUuid(id) || !isUuid(tenant.organizationId)) return Promise.resolve(null);
    return this.gateway.read(async (sql) => {
      const scope = tenantScope(tenant, 'g');
      const [row] = await sql(
        `select ${allColumns('scim_groups', 'g')} from ${table('scim_groups')} g where g.id = ? and ${scope.sql}`,
        [id, ...scope.params],
      );
      return row === undefined ? null : scimGroupFromRow(row);
    });
  }

  queryScimGroups(
    tenant: ScimTenant,
    query: Parameters<Reads['queryScimGroups']>[1],
  ): ReturnType<Reads['queryScimGroups']> {
    if (!isUuid(tenant.organizationId)) return Promise.resolve({ totalResults: 0, resources: [] });
    return this.gateway.read(async (sql): Promise<ScimListPage<ReturnType<typeof scimGroupFromRow>>> => {
      const where = scoped(tenant, 'g', query.filter === null ? null : scimGroupFilterSql(query.filter, 'g'));
      const orderBy =
        query.sortBy === null ? 'g.created_at, g.id' : scimGroupOrderSql(query.sortBy, query.sortOrder, 'g');
      const { totalResults, rows } = await page(sql, 'scim_groups', 'g', where, orderBy, query);
      return { totalResults, resources: rows.map(scimGroupFromRow) };
    });
  }

  listScimGroupMembers(tenant: ScimTenant, groupIds: readonly string[]): ReturnType<Reads['listScimGroupMembers']> {
    const ids = groupIds.filter(isUuid);
    if (ids.length === 0 || !isUuid(tenant.organizationId)) return Promise.resolve([]);
    return this.gateway.read(async (sql) => {
      const rows = await sql(
        `select m.group_id, u.id as user_id, u.user_name
           from ${table('scim_group_members')} m
           join ${table('scim_groups')} g on g.id = m.group_id
           join ${table('scim_users')} u on u.id = m.scim_user_id
          where m.group_id = any(?::uuid[]) and g.organization_id = ? and g.provider = ? and g.state = 'active'
            and u.organization_id = g.organization_id and u.provider = g.provider and u.state = 'active'
          order by m.group_id, u.user_name, u.id`,
        [ids, tenant.organizationId, tenant.provider],
      );
      return rows.map((row) => ({
        groupId: text(row, 'group_id'),
        userId: text(row, 'user_id'),
        display: text(row, 'user_name'),
      }));
    });
  }

  listScimUserGroups(tenant: ScimTenant, userIds: readonly string[]): ReturnType<Reads['listScimUserGroups']> {
    const ids = userIds.filter(isUuid);
    if (ids.length === 0 || !isUuid(tenant.organizationId)) return Promise.resolve([]);
    return this.gateway.read(async (sql) => {
      const rows = await sql(
        `select m.scim_user_id, g.id as group_id, g.display_name
           from ${table('scim_group_members')} m
           join ${table('scim_groups')} g on g.id = m.group_id
          where m.scim_user_id = any(?::uuid[]) and g.organization_id = ? and g.provider = ? and g.state = 'active'
          order by m.scim_user_id, g.display_name, g.id`,
        [ids, tenant.organizationId, tenant.provider],
      );
      return rows.map((row) => ({
        userId: text(row, 'scim_user_id'),
        groupId: text(row, 'group_id'),
        display: text(row, 'display_name'),
      }));
    });
  }

  findScimReplay(tenant: ScimTenant, receipt: ScimReceiptInput): ReturnType<Reads['findScimReplay']> {
    if (!isUuid(receipt.operationId) || !isUuid(tenant.organizationId)) return Promise.resolve(null);
    return this.gateway.read(async (sql) => {
      const [row] = await sql(
        `select ${allColumns('scim_batch_operations')} from ${table('scim_batch_operations')} where operation_id = ?`,
        [receipt.operationId],
      );
      return row === undefined ? null : receiptOutcome(row, tenant, receipt);
    });
  }
}
