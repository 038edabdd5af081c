import type {
  ScimComparator,
  ScimFilter,
  ScimFilterValue,
  ScimGroupFilter,
  ScimGroupSortKey,
  ScimUserFilter,
  ScimUserSortKey,
} from '@tessera/identity';
import { table } from './identity-store.gateway.js';

/** A predicate or clause with `?` placeholders and its parameters, in order. */
export interface ScimSqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

type ColumnType = 'text' | 'uuid' | 'boolean' | 'timestamptz';

/** Where a filter attribute lives: a column of the resource row, or of its multi-valued child rows. */
interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly caseExact: boolean;
  readonly nullable: boolean;
  /** Set for a sub-attribute of a multi-valued attribute (`emails.value`). */
  readonly multi?: 'emails' | 'members';
}

/** One resource: its columns and how to reach the rows of its multi-valued attribute. */
interface Resource {
  readonly columns: Readonly<Record<string, Column>>;
  readonly child: { readonly attribute: 'emails' | 'members'; readonly table: string; readonly parent: string };
}

const text = (name: string, caseExact = false): Column => ({ name, type: 'text', caseExact, nullable: true });
const required = (column: Column): Column => ({ ...column, nullable: false });

const USER: Resource = {
  columns: {
    id: { name: 'id', type: 'uuid', caseExact: true, nullable: false },
    externalId: text('external_id', true),
    userName: required(text('user_name')),
    displayName: text('display_name'),
    nickName: text('nick_name'),
    title: text('title'),
    userType: text('user_type'),
    preferredLanguage: text('preferred_language'),
    locale: text('locale'),
    timezone: text('timezone'),
    active: { name: 'active', type: 'boolean', caseExact: false, nullable: false },
    'name.formatted': text('name_formatted'),
    'name.familyName': text('name_family_name'),
    'name.givenName': text('name_given_name'),
    'name.middleName': text('name_middle_name'),
    'name.honorificPrefix': text('name_honorific_prefix'),
    'name.honorificSuffix': text('name_honorific_suffix'),
    'emails.value': { ...required(text('value')), multi: 'emails' },
    'emails.type': { ...text('type'), multi: 'emails' },
    'emails.primary': { name: 'is_primary', type: 'boolean', caseExact: false, nullable: false, multi: 'emails' },
    'enterprise.employeeNumber': text('enterprise_employee_number'),
    'enterprise.costCenter': text('enterprise_cost_center'),
    'enterprise.organization': text('enterprise_organization'),
    'enterprise.division': text('enterprise_division'),
    'enterprise.department': text('enterprise_department'),
    'meta.created': { name: 'created_at', type: 'timestamptz', caseExact: false, nullable: false },
    'meta.lastModified': { name: 'updated_at', type: 'timestamptz', caseExact: false, nullable: false },
  },
  child: { attribute: 'emails', table: table('scim_user_emails'), parent: 'scim_user_id' },
};

const GROUP: Resource = {
  columns: {
    id: USER.columns['id']!,
    externalId: text('external_id', true),
    displayName: required(text('display_name')),
    'members.value': { name: 'scim_user_id', type: 'uuid', caseExact: false, nullable: false, multi: 'members' },
    'meta.created': USER.columns['meta.created']!,
    'meta.lastModified': USER.columns['meta.lastModified']!,
  },
  child: { attribute: 'members', table: table('scim_group_members'), parent: 'group_id' },
};

const OPERATORS: Readonly<Record<ScimComparator, string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  ge: '>=',
  lt: '<',
  le: '<=',
  co: 'like',
  sw: 'like',
  ew: 'like',
};
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ALIAS = /^[a-z_][a-z0-9_]{0,30}$/;

/**
 * Translates a User filter to a two-valued predicate over `scim_users <alias>` (never SQL NULL, so
 * `not` is exact): case-insensitive strings compare `lower()`ed (`userName eq` is
 * `lower(u.user_name) = lower(?)`, the tenant's lower(user_name) index), ordering compares code
 * points (`collate "C"`), `co`/`sw`/`ew` are escaped `like` patterns, `emails.*` are `exists`
 * subqueries over `scim_user_emails`. Values are only ever parameters.
 *
 * @example
 * const where = scimUserFilterSql(parseScimUserFilter('userName eq "Bjensen"'), 'u');
 * // { sql: '(lower(u.user_name) = lower(?))', params: ['Bjensen'] }
 */
export function scimUserFilterSql(filter: ScimUserFilter, alias: string): ScimSqlFragment {
  return translate(USER, filter, alias);
}

/**
 * Translates a Group filter like {@link scimUserFilterSql}, over `scim_groups <alias>`; `members.value`
 * is an `exists` subquery over `scim_group_members`.
 *
 * @example
 * const where = scimGroupFilterSql(parseScimGroupFilter('displayName eq "Admins"'), 'g');
 */
export function scimGroupFilterSql(filter: ScimGroupFilter, alias: string): ScimSqlFragment {
  return translate(GROUP, filter, alias);
}

/**
 * `order by` terms (without the keywords) for a User sort key: strings by the same code-point
 * order as the filter, absent values last when ascending and first when descending (RFC 7644
 * §3.4.2.3), ties broken by id.
 *
 * @example
 * scimUserOrderSql('userName', 'descending', 'u'); // 'lower(u.user_name) collate "C" desc nulls first, u.id asc'
 */
export function scimUserOrderSql(key: ScimUserSortKey, order: 'ascending' | 'descending', alias: string): string {
  return orderBy(USER, key, order, alias);
}

/**
 * `order by` terms for a Group sort key, like {@link scimUserOrderSql}.
 *
 * @example
 * scimGroupOrderSql('displayName', 'ascending', 'g'); // 'lower(g.display_name) collate "C" asc nulls last, g.id asc'
 */
export function scimGroupOrderSql(key: ScimGroupSortKey, order: 'ascending' | 'descending', alias: string): string {
  return orderBy(GROUP, key, order, alias);
}

function orderBy(resource: Resource, key: string, order: 'ascending' | 'descending', alias: string): string {
  const column = resource.columns[key];
  if (!column || column.multi || !ALIAS.test(alias)) throw new Error('unsupported SCIM sort key or alias');
  const reference = `${alias}.${column.name}`;
  const expression =
    column.type !== 'text'
      ? reference
      : column.caseExact
        ? `${reference} collate "C"`
        : `lower(${reference}) collate "C"`;
  const direction = order === 'ascending' ? 'asc nulls last' : 'desc nulls first';
  return key === 'id' ? `${reference} ${direction}` : `${expression} ${direction}, ${alias}.id asc`;
}

/** Collects SQL text and parameters in order. */
class Builder {
  readonly params: unknown[] = [];

  param(value: unknown): string {
    this.params.push(value);
    return '?';
  }
}

function translate(resource: Resource, filter: ScimFilter, alias: string): ScimSqlFragment {
  if (!ALIAS.test(alias)) throw new Error('unsupported SQL alias');
  const builder = new Builder();
  const sql = node(
    resource,
    filter,
    { alias, child: `${alias}_${resource.child.attribute[0]}`, inChild: false },
    builder,
  );
  return { sql, params: builder.params };
}

interface Scope {
  readonly alias: string;
  /** Alias of the child rows (`u_e`). */
  readonly child: string;
  /** Inside a value path: sub-attributes are columns of the current child row. */
  readonly inChild: boolean;
}

function node(resource: Resource, filter: ScimFilter, scope: Scope, builder: Builder): string {
  switch (filter.kind) {
    case 'constant':
      return filter.value ? 'true' : 'false';
    case 'and':
    case 'or':
      return `(${filter.filters.map((f) => node(resource, f, scope, builder)).join(` ${filter.kind} `)})`;
    case 'not':
      return `(not ${node(resource, filter.filter, scope, builder)})`;
    case 'valuePath':
      if (scope.inChild || filter.attribute !== resource.child.attribute)
        throw new Error('unsupported SCIM value path');
      return exists(resource, scope, node(resource, filter.filter, { ...scope, inChild: true }, builder));
    case 'present':
    case 'compare': {
      const column = resource.columns[filter.attribute];
      if (!column) throw new Error('unsupported SCIM filter attribute');
      if (!column.multi) return leaf(column, `${scope.alias}.${column.name}`, filter, builder);
      const reference = `${scope.child}.${column.name}`;
      if (scope.inChild) return leaf(column, reference, filter, builder);
      // Any value satisfies; with no values `ne` holds (an absent attribute is "not equal").
      if (filter.kind === 'compare' && filter.op === 'eq' && filter.value === null) {
        return `(not ${exists(resource, scope, present(column, reference))})`;
      }
      const any = exists(resource, scope, leaf(column, reference, filter, builder));
      if (filter.kind === 'compare' && filter.op === 'ne' && filter.value !== null) {
        return `((not ${exists(resource, scope, 'true')}) or ${any})`;
      }
      return any;
    }
  }
}

/**
 * `exists` over the child rows; the tenant columns are correlated too so that a lookup by value can
 * start from the child table's `(organization_id, provider, lower(value))` index.
 */
function exists(resource: Resource, scope: Scope, predicate: string): string {
  const { table: name, parent } = resource.child;
  const [child, row] = [scope.child, scope.alias];
  return `exists (select 1 from ${name} ${child} where ${child}.${parent} = ${row}.id and ${child}.organization_id = ${row}.organization_id and ${child}.provider = ${row}.provider and ${predicate})`;
}

/** `pr`: present and (for text) non-empty. */
function present(column: Column, reference: string): string {
  const nonEmpty = column.type === 'text' ? `${reference} <> ''` : 'true';
  return column.nullable ? `(${reference} is not null and ${nonEmpty})` : `(${nonEmpty})`;
}

function leaf(
  column: Column,
  reference: string,
  filter: Extract<ScimFilter, { kind: 'present' | 'compare' }>,
  builder: Builder,
): string {
  if (filter.kind === 'present') return present(column, reference);
  const { op, value } = filter;
  if (value === null) return op === 'eq' ? `(not ${present(column, reference)})` : present(column, reference);
  const comparison = compare(column, reference, op, value, builder);
  if (!column.nullable) return `(${comparison})`;
  return op === 'ne' ? `(${reference} is null or ${comparison})` : `(${reference} is not null and ${comparison})`;
}

function compare(
  column: Column,
  reference: string,
  op: ScimComparator,
  value: ScimFilterValue,
  builder: Builder,
): string {
  if (column.type === 'boolean' || column.type === 'timestamptz') {
    if (typeof value === 'string' || (column.type === 'boolean') !== (typeof value === 'boolean')) {
      throw new Error('SCIM filter value of the wrong type');
    }
    return `${reference} ${OPERATORS[op]} ${builder.param(value)}`;
  }
  if (typeof value !== 'string') throw new Error('SCIM filter value of the wrong type');
  if (column.type === 'uuid' && (op === 'eq' || op === 'ne')) {
    // Equality on the uuid column itself (primary key / index); a value that is no id matches nothing.
    const id = column.caseExact ? value : value.toLowerCase();
    if (!CANONICAL_UUID.test(id)) return op === 'eq' ? 'false' : 'true';
    return `${reference} ${OPERATORS[op]} ${builder.param(id)}`;
  }
  const textual = column.type === 'uuid' ? `cast(${reference} as text)` : reference;
  const left = column.caseExact ? textual : `lower(${textual})`;
  const fold = (placeholder: string) => (column.caseExact ? placeholder : `lower(${placeholder})`);
  switch (op) {
    case 'eq':
    case 'ne':
      return `${left} ${OPERATORS[op]} ${fold(builder.param(value))}`;
    case 'co':
    case 'sw':
    case 'ew': {
      const escaped = value.replace(/[\\%_]/g, (char) => `\\${char}`);
      const pattern = op === 'co' ? `%${escaped}%` : op === 'sw' ? `${escaped}%` : `%${escaped}`;
      return `${left} like ${fold(builder.param(pattern))} escape '\\'`;
    }
    default:
      return `${left} collate "C" ${OPERATORS[op]} ${fold(builder.param(value))} collate "C"`;
  }
}
