import type { Exchange } from '@tessera/web';
import type {
  ScimGroupFilter,
  ScimGroupSortKey,
  ScimListQuery,
  ScimUserFilter,
  ScimUserSortKey,
} from '../filter/scim-filter.ast.js';
import { parseScimGroupFilter, parseScimSortBy, parseScimUserFilter } from '../filter/scim-filter.parser.js';
import { ScimError } from '../scim.errors.js';

/** `attributes` / `excludedAttributes` of a request (RFC 7644 §3.4.2.5), still unparsed. */
export interface ScimProjectionParams {
  readonly attributes?: string;
  readonly excludedAttributes?: string;
}

const KNOWN = ['filter', 'sortby', 'sortorder', 'startindex', 'count', 'attributes', 'excludedattributes'];
const INTEGER = /^-?[0-9]{1,10}$/;

function invalid(): ScimError {
  return new ScimError(400, 'invalidValue', 'A query parameter is not valid');
}

/**
 * The query parameters of a SCIM request, names case-insensitive (Entra and Okta spell them
 * `startIndex`, `count`, `excludedAttributes`); a known parameter given twice → 400 `invalidValue`.
 *
 * @example
 * const params = scimQuery(exchange);
 */
export function scimQuery(exchange: Exchange): Map<string, string> {
  const params = new Map<string, string>();
  let parsed: URLSearchParams;
  try {
    parsed = new URLSearchParams(exchange.rawQuery);
  } catch {
    throw invalid();
  }
  for (const [name, value] of parsed) {
    const key = name.toLowerCase();
    if (!KNOWN.includes(key)) continue;
    if (params.has(key)) throw invalid();
    params.set(key, value);
  }
  return params;
}

/**
 * `attributes` / `excludedAttributes` of the query.
 *
 * @example
 * projectScimResource(view, projectionOf(params), 'User');
 */
export function projectionOf(params: Map<string, string>): ScimProjectionParams {
  const attributes = params.get('attributes');
  const excludedAttributes = params.get('excludedattributes');
  return {
    ...(attributes === undefined ? {} : { attributes }),
    ...(excludedAttributes === undefined ? {} : { excludedAttributes }),
  };
}

function paging(params: Map<string, string>, maxPageSize: number) {
  const start = params.get('startindex');
  const count = params.get('count');
  if ((start !== undefined && !INTEGER.test(start)) || (count !== undefined && !INTEGER.test(count))) throw invalid();
  const order = params.get('sortorder')?.toLowerCase() ?? 'ascending';
  if (order !== 'ascending' && order !== 'descending') throw invalid();
  return {
    // RFC 7644 §3.4.2.4: below 1 is 1; a negative count is 0; above the page size is capped.
    startIndex: Math.max(1, start === undefined ? 1 : Number(start)),
    count: Math.min(maxPageSize, Math.max(0, count === undefined ? maxPageSize : Number(count))),
    sortOrder: order as 'ascending' | 'descending',
  };
}

/**
 * The list query of `GET /Users` (filter parsed and bounded, sort key resolved, paging per RFC
 * 7644 §3.4.2.4).
 *
 * @example
 * const query = userListQuery(params, kernel.scim.maxPageSize);
 */
export function userListQuery(
  params: Map<string, string>,
  maxPageSize: number,
): ScimListQuery<ScimUserFilter, ScimUserSortKey> {
  const filter = params.get('filter');
  const sortBy = params.get('sortby');
  return {
    filter: filter === undefined || filter.trim() === '' ? null : parseScimUserFilter(filter),
    sortBy: sortBy === undefined ? null : (parseScimSortBy(sortBy, 'user') as ScimUserSortKey),
    ...paging(params, maxPageSize),
  };
}

/**
 * The list query of `GET /Groups`.
 *
 * @example
 * const query = groupListQuery(params, kernel.scim.maxPageSize);
 */
export function groupListQuery(
  params: Map<string, string>,
  maxPageSize: number,
): ScimListQuery<ScimGroupFilter, ScimGroupSortKey> {
  const filter = params.get('filter');
  const sortBy = params.get('sortby');
  return {
    filter: filter === undefined || filter.trim() === '' ? null : parseScimGroupFilter(filter),
    sortBy: sortBy === undefined ? null : (parseScimSortBy(sortBy, 'group') as ScimGroupSortKey),
    ...paging(params, maxPageSize),
  };
}
