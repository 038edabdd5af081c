import type { ScimFilter, ScimGroupFilter, ScimGroupSortKey, ScimUserFilter, ScimUserSortKey } from '@tessera/identity';

/*
 * PLACEHOLDER of the store branch, replaced by the filter helper's translator at the merge: only
 * `eq` comparisons of `id`, `externalId`, `userName` and `displayName`, with `and`, `or`, `not`
 * and constants, so the store compiles and its conformance cases run before that file lands.
 */

/** A parameterised SQL fragment (`?` placeholders). */
export interface ScimSqlFragment {
  readonly sql: string;
  readonly params: unknown[];
}

type Columns = Readonly<Record<string, { readonly column: string; readonly caseExact: boolean }>>;

const USER_COLUMNS: Columns = {
  id: { column: 'id', caseExact: true },
  externalId: { column: 'external_id', caseExact: true },
  userName: { column: 'user_name', caseExact: false },
  displayName: { column: 'display_name', caseExact: false },
};

const GROUP_COLUMNS: Columns = {
  id: { column: 'id', caseExact: true },
  externalId: { column: 'external_id', caseExact: true },
  displayName: { column: 'display_name', caseExact: false },
};

function translate(filter: ScimFilter, alias: string, columns: Columns): ScimSqlFragment {
  switch (filter.kind) {
    case 'constant':
      return { sql: filter.value ? 'true' : 'false', params: [] };
    case 'not': {
      const inner = translate(filter.filter, alias, columns);
      return { sql: `not (${inner.sql})`, params: inner.params };
    }
    case 'and':
    case 'or': {
      const parts = filter.filters.map((part) => translate(part, alias, columns));
      return {
        sql: `(${parts.map((part) => `(${part.sql})`).join(` ${filter.kind} `)})`,
        params: parts.flatMap((part) => part.params),
      };
    }
    case 'compare': {
      const target = columns[filter.attribute];
      if (target === undefined || filter.op !== 'eq' || typeof filter.value !== 'string')
        throw new Error('unsupported SCIM filter in the placeholder translator');
      const column = `${alias}.${target.column}`;
      if (target.column === 'id') return { sql: `${column}::text = ?`, params: [filter.value.toLowerCase()] };
      return target.caseExact
        ? { sql: `${column} = ?`, params: [filter.value] }
        : { sql: `lower(${column}) = lower(?)`, params: [filter.value] };
    }
    default:
      throw new Error('unsupported SCIM filter in the placeholder translator');
  }
}

/**
 * The WHERE fragment of a User filter over `scim_users <alias>`.
 *
 * @example
 * const { sql, params } = scimUserFilterSql({ kind: 'compare', attribute: 'userName', op: 'eq', value: 'ada' }, 'u');
 */
export function scimUserFilterSql(filter: ScimUserFilter, alias: string): ScimSqlFragment {
  return translate(filter, alias, USER_COLUMNS);
}

/**
 * The WHERE fragment of a Group filter over `scim_groups <alias>`.
 *
 * @example
 * const { sql, params } = scimGroupFilterSql({ kind: 'compare', attribute: 'displayName', op: 'eq', value: 'Admins' }, 'g');
 */
export function scimGroupFilterSql(filter: ScimGroupFilter, alias: string): ScimSqlFragment {
  return translate(filter, alias, GROUP_COLUMNS);
}

function order(columns: Columns, key: string, direction: 'ascending' | 'descending', alias: string): string {
  const target = columns[key];
  const way = direction === 'descending' ? 'desc' : 'asc';
  const column = target === undefined ? `${alias}.created_at` : `${alias}.${target.column}`;
  return `${column} ${way}, ${alias}.id ${way}`;
}

/**
 * The ORDER BY list of a User sort key.
 *
 * @example
 * scimUserOrderSql('userName', 'ascending', 'u'); // 'u.user_name asc, u.id asc'
 */
export function scimUserOrderSql(key: ScimUserSortKey, direction: 'ascending' | 'descending', alias: string): string {
  return order(USER_COLUMNS, key, direction, alias);
}

/**
 * The ORDER BY list of a Group sort key.
 *
 * @example
 * scimGroupOrderSql('displayName', 'descending', 'g'); // 'g.display_name desc, g.id desc'
 */
export function scimGroupOrderSql(key: ScimGroupSortKey, direction: 'ascending' | 'descending', alias: string): string {
  return order(GROUP_COLUMNS, key, direction, alias);
}
