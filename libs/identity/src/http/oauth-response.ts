import { Logger } from '@nestjs/common';
import type { ErrorMapper, Exchange } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import { OAuthError, type OAuthErrorCode } from '../errors/oauth.errors.js';
import { StoreError } from '../errors/store.errors.js';
import { getRequestId } from './identity-exchange.js';

const logger = new Logger('IdentityOAuth');

/**
 * Headers of every OAuth response (`identity-http.md` §1, §5): never cached, by HTTP/1.1 or
 * HTTP/1.0 caches.
 *
 * @example
 * exchange.respond({ status: 200, body, headers: { ...OAUTH_NO_STORE_HEADERS } });
 */
export const OAUTH_NO_STORE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  pragma: 'no-cache',
});

/**
 * Answers an OAuth error (`identity-http.md` §5): the code's fixed status, body exactly
 * `{"error","error_description"}` as `application/json; charset=utf-8`, `Cache-Control: no-store`,
 * `Pragma: no-cache`, and `Retry-After` for `rate_limited`. The request id is not in the body; the
 * `X-Request-ID` header set at stage 1 carries it.
 *
 * @example
 * respondOAuthError(exchange, 'authorization_pending');
 * respondOAuthError(exchange, new OAuthError('rate_limited', { retryAfterSeconds: 30 }));
 */
export function respondOAuthError(exchange: Exchange, error: OAuthError | OAuthErrorCode): void {
  const failure = typeof error === 'string' ? new OAuthError(error) : error;
  const headers: Record<string, string> = { ...OAUTH_NO_STORE_HEADERS };
  if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
  exchange.respond({ status: failure.status, body: failure.toBody(), headers });
}

/**
 * Answers another method on an OAuth endpoint: the router's 405 body (`web-and-viewset.md` §5.2;
 * the router has set `Allow`) with `Cache-Control: no-store` and `Pragma: no-cache`.
 *
 * @example
 * respondOAuthMethodNotAllowed(exchange); // GET /oauth/token → 405, Allow: POST
 */
export function respondOAuthMethodNotAllowed(exchange: Exchange): void {
  exchange.respond({
    status: 405,
    body: { statusCode: 405, message: 'Method Not Allowed' },
    headers: { ...OAUTH_NO_STORE_HEADERS },
  });
}

/**
 * Answers a successful OAuth JSON response (200 by default) with `Cache-Control: no-store` and
 * `Pragma: no-cache`.
 *
 * @example
 * respondOAuthJson(exchange, { access_token, token_type: 'Bearer', expires_in, refresh_token, scope });
 */
export function respondOAuthJson(exchange: Exchange, body: Readonly<Record<string, unknown>>, status = 200): void {
  exchange.respond({ status, body, headers: { ...OAUTH_NO_STORE_HEADERS } });
}

/**
 * Answers 200 with an empty body (RFC 7009 revocation, also for unknown or foreign tokens), with
 * `Cache-Control: no-store` and `Pragma: no-cache`.
 *
 * @example
 * respondOAuthEmpty(exchange);
 */
export function respondOAuthEmpty(exchange: Exchange): void {
  exchange.respond({ status: 200, headers: { ...OAUTH_NO_STORE_HEADERS, 'content-length': '0' } });
}

/**
 * The OAuth error an arbitrary failure on an OAuth endpoint becomes: an `OAuthError` stays as it
 * is; the shared identity stages' `rate_limited` (with its `Retry-After`), `service_unavailable`
 * (limiter or store outage) and `request_invalid` become `rate_limited`, `temporarily_unavailable`
 * and `invalid_request`; a store `unavailable`/`internal` failure becomes `temporarily_unavailable`;
 * anything else is `server_error`. The original error is kept as `cause`, never serialised.
 *
 * @example
 * respondOAuthError(exchange, toOAuthError(error));
 */
export function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof IdentityError) {
    switch (error.code) {
      case 'rate_limited':
        return new OAuthError('rate_limited', { cause: error, retryAfterSeconds: error.retryAfterSeconds ?? 1 });
      case 'service_unavailable':
        return new OAuthError('temporarily_unavailable', { cause: error });
      // A decode failure, or credentials the public-client endpoints do not take (a bearer, a bad
      // session cookie or CSRF token): a malformed request for this endpoint, never a server error.
      case 'request_invalid':
      case 'invalid_credentials':
      case 'authentication_required':
      case 'session_revoked':
      case 'session_expired':
      case 'csrf_invalid':
        return new OAuthError('invalid_request', { cause: error });
      default:
        return new OAuthError('server_error', { cause: error });
    }
  }
  if (error instanceof StoreError && (error.code === 'unavailable' || error.code === 'internal')) {
    return new OAuthError('temporarily_unavailable', { cause: error });
  }
  return new OAuthError('server_error', { cause: error });
}

/**
 * `true` for the paths whose errors use the RFC 6749 body (`identity-http.md` §8.2).
 *
 * @example
 * isOAuthPath('/oauth/token'); // true
 */
export function isOAuthPath(path: string): boolean {
  return path.startsWith('/oauth/');
}

/**
 * A `TESSERA_ERROR_MAPPER` for `/oauth/*`: claims every error thrown there and answers it through
 * {@link toOAuthError} and {@link respondOAuthError}; other paths are left to the next mapper. It
 * must run before `identityErrorMapper`, which claims `IdentityError`s on every path. Only the
 * error's class and the request id are logged, for `server_error` and `temporarily_unavailable`:
 * exception text can carry secrets.
 *
 * @example
 * { provide: TESSERA_ERROR_MAPPER, useValue: [oauthErrorMapper, identityErrorMapper] }
 */
export const oauthErrorMapper: ErrorMapper = (error, exchange) => {
  if (!isOAuthPath(exchange.path)) return false;
  const failure = toOAuthError(error);
  if (failure.code === 'server_error' || failure.code === 'temporarily_unavailable') {
    const cause = failure === error ? failure.cause : error;
    logger.error(`${failure.code} (${describe(cause)}) request ${getRequestId(exchange) ?? '-'}`);
  }
  respondOAuthError(exchange, failure);
  return true;
};

function describe(error: unknown): string {
  if (error === undefined) return 'no cause';
  return error instanceof Error ? error.name : typeof error;
}
