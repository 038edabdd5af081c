import type { Exchange } from '@tessera/web';
import { ScimError } from '../scim.errors.js';

/** The media type of every SCIM answer (RFC 7644 §3.1). */
export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8';

/** The RFC 7644 §3.12 error schema URN. */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** `true` on the paths the SCIM service owns (`/scim/v2` and below). */
export function isScimPath(path: string): boolean {
  return path === '/scim/v2' || path.startsWith('/scim/v2/');
}

/**
 * Answers a SCIM body (or none, for 204/304) as `application/scim+json`, never cached by a
 * shared cache (`Cache-Control: no-store`: resources carry personal data).
 *
 * @example
 * respondScim(exchange, 201, renderScimUser(record, [], base), { location, etag: 'W/"1"' });
 */
export function respondScim(
  exchange: Exchange,
  status: number,
  body: unknown,
  headers: { readonly location?: string; readonly etag?: string } = {},
): void {
  const out: Record<string, string> = { 'cache-control': 'no-store' };
  if (body !== undefined) out['content-type'] = SCIM_MEDIA_TYPE;
  if (headers.location !== undefined) out['location'] = headers.location;
  if (headers.etag !== undefined) out['etag'] = headers.etag;
  exchange.respond({ status, ...(body === undefined ? {} : { body }), headers: out });
}

/**
 * The RFC 7644 error body: `status` as a string, `scimType` when the case has one, a fixed `detail`.
 *
 * @example
 * scimErrorBody(new ScimError(404, undefined, 'Resource not found'));
 */
export function scimErrorBody(error: ScimError): Record<string, unknown> {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(error.status),
    ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
    detail: error.detail,
  };
}

/**
 * Answers a {@link ScimError} (401 adds `WWW-Authenticate: Bearer`, RFC 6750 §3).
 *
 * @example
 * respondScimError(exchange, new ScimError(401, undefined, 'Authentication failed'));
 */
export function respondScimError(exchange: Exchange, error: ScimError, retryAfterSeconds?: number): void {
  const headers: Record<string, string> = { 'cache-control': 'no-store', 'content-type': SCIM_MEDIA_TYPE };
  if (error.status === 401) headers['www-authenticate'] = 'Bearer realm="scim"';
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  exchange.respond({ status: error.status, body: scimErrorBody(error), headers });
}
