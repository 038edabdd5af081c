import type { ScimProjectionParams } from './http/scim-list.params.js';
import { ScimError } from './scim.errors.js';

/** What a SCIM handler answers: a status, an optional body and the resource headers. */
export interface ScimAnswer {
  readonly status: number;
  readonly body?: Record<string, unknown>;
  readonly etag?: string;
  readonly location?: string;
}

const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/**
 * The weak ETag of a resource version.
 *
 * @example
 * etag(3); // 'W/"3"'
 */
export const etag = (version: number): string => `W/"${version}"`;

/**
 * Whether `If-Match` / `If-None-Match` versions (`null` when the header is absent) admit `version`.
 *
 * @example
 * admits([2, 3], 3); // true
 */
export const admits = (tags: readonly (number | '*')[] | null, version: number): boolean =>
  tags === null || tags.some((tag) => tag === '*' || tag === version);

/**
 * A store read whose failure is the SCIM 503 (never the store's error text).
 *
 * @example
 * const user = await read(() => store.findScimUser(tenant, id));
 */
export async function read<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch {
    throw new ScimError(503, undefined, 'The provisioning service is temporarily unavailable');
  }
}

/**
 * Whether the projection keeps the multi-valued `attribute` (`members`, `groups`) in the answer.
 *
 * @example
 * wants({ excludedAttributes: 'members' }, 'members'); // false
 */
export function wants(projection: ScimProjectionParams, attribute: 'members' | 'groups'): boolean {
  const excluded =
    projection.excludedAttributes
      ?.toLowerCase()
      .split(',')
      .map((name) => name.trim()) ?? [];
  if (excluded.includes(attribute)) return false;
  const wanted = projection.attributes
    ?.toLowerCase()
    .split(',')
    .map((name) => name.trim());
  return wanted === undefined || wanted.some((name) => name === attribute || name.startsWith(`${attribute}.`));
}

/**
 * A ListResponse body (RFC 7644 §3.4.2).
 *
 * @example
 * listBody(1, 1, [user]);
 */
export function listBody(totalResults: number, startIndex: number, resources: readonly Record<string, unknown>[]) {
  return { schemas: [LIST_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
