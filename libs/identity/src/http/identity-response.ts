import type { Exchange } from '@tessera/web';
import { identityErrorBody, IdentityError, type IdentityErrorCode } from '../errors/identity.errors.js';
import { getRequestId } from './identity-exchange.js';
import { isOAuthPath, respondOAuthError, toOAuthError } from './oauth-response.js';

/**
 * Answers `code` with the identity envelope (identity-http §8.1): status by code,
 * `Cache-Control: no-store`, the request id in the body (and header, set at stage 1), and
 * `Retry-After` for `rate_limited`. On `/oauth/*` the pre-route stages (authority, credentials,
 * CSRF) answer with the RFC 6749 body instead (identity-http §5, §8.2).
 *
 * @example
 * respondIdentityError(exchange, 'not_found');
 */
export function respondIdentityError(exchange: Exchange, code: IdentityErrorCode, retryAfterSeconds?: number): void {
  const error = new IdentityError(code, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
  // A 405 keeps its status and `Allow` (RFC 6749 has no code for it); everything else is OAuth's.
  if (code !== 'method_not_allowed' && isOAuthPath(exchange.path)) {
    respondOAuthError(exchange, toOAuthError(error));
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
