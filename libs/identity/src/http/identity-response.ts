import type { Exchange, ResponseStream } from '@tessera/web';
import { identityErrorBody, IdentityError, type IdentityErrorCode } from '../errors/identity.errors.js';
import { getRequestId } from './identity-exchange.js';
import { respondScimIdentityError } from '../scim/http/scim-error.mapper.js';
import { isScimPath } from '../scim/http/scim-response.js';
import { isOAuthPath, respondOAuthError, respondOAuthMethodNotAllowed, toOAuthError } from './oauth-response.js';

/**
 * Answers `code` with the identity envelope (identity-http §8.1): status by code,
 * `Cache-Control: no-store`, the request id in the body (and header, set at stage 1), and
 * `Retry-After` for `rate_limited`. On `/oauth/*` the pre-route stages (authority, credentials,
 * CSRF) answer with the RFC 6749 body instead (identity-http §5, §8.2), and another method the
 * router's `{statusCode: 405, message}` body with `Allow`.
 *
 * @example
 * respondIdentityError(exchange, 'not_found');
 */
export function respondIdentityError(exchange: Exchange, code: IdentityErrorCode, retryAfterSeconds?: number): void {
  if (isScimPath(exchange.path)) return respondScimIdentityError(exchange, code, retryAfterSeconds);
  const error = new IdentityError(code, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
  if (isOAuthPath(exchange.path)) {
    // RFC 6749 has no code for a 405: the router's own body (web §5.2) with its `Allow`, cached by
    // nobody, and the request id only in its header (identity-http §5).
    if (code === 'method_not_allowed') respondOAuthMethodNotAllowed(exchange);
    else respondOAuthError(exchange, toOAuthError(error));
    return;
  }
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  exchange.respond({ status: error.status, body: identityErrorBody(code, getRequestId(exchange)), headers });
}

/**
 * Answers a successful identity response: JSON with `Cache-Control: no-store`.
 *
 * @example
 * respondIdentityJson(exchange, 200, { ok: true });
 */
export function respondIdentityJson(exchange: Exchange, status: number, body: unknown): void {
  exchange.respond({ status, body, headers: { 'cache-control': 'no-store' } });
}

/**
 * Starts a successful identity response whose body is streamed (an export): `headers` plus
 * `Cache-Control: no-store`; the body is written through the returned stream (backpressure,
 * client disconnects: `ResponseStream`).
 *
 * @example
 * const body = respondIdentityStream(exchange, 200, { 'content-type': 'text/csv; charset=utf-8' });
 */
export function respondIdentityStream(
  exchange: Exchange,
  status: number,
  headers: Record<string, string>,
): ResponseStream {
  return exchange.respondStream({ status, headers: { ...headers, 'cache-control': 'no-store' } });
}
