import type { Exchange, Middleware } from '@tessera/web';
import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { verifyCsrfToken } from '../tokens/secret-token.format.js';
import type { SessionPepperRing } from '../sessions/session-keys.js';
import { getIdentityContext, IDENTITY_ATTRIBUTES } from './identity-exchange.js';
import { respondIdentityError } from './identity-response.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT']);
const CSRF_QUERY_NAMES = ['csrf', '_csrf', 'csrftoken', 'csrf_token', 'csrf-token'];

/** What {@link identityCsrfMiddleware} needs. */
export interface CsrfOptions {
  readonly allowedOrigins: readonly string[];
  /** @default 'X-CSRF-Token' */
  readonly headerName: string;
  readonly peppers: SessionPepperRing;
  /** Longest accepted query string. @default 8192 */
  readonly maxQueryLength?: number;
}

/** `true` when the query carries a CSRF-named parameter, cannot be decoded or is too long. */
function queryRejected(exchange: Exchange, names: readonly string[], maxLength: number): boolean {
  const query = exchange.rawQuery;
  if (query.length > maxLength) return true;
  if (query === '') return false;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    let name: string;
    try {
      name = decodeURIComponent((eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
      if (eq !== -1) decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      return true;
    }
    if (names.includes(name.toLowerCase())) return true;
  }
  return false;
}

/**
 * Stage 5 (order 400), CSRF (identity-http §2.2): CSRF-named or undecodable query parameters are
 * refused on every method; a cookie-authenticated unsafe request needs exactly one `Origin` equal
 * to an allowed origin and exactly one `X-CSRF-Token` whose keyed digest equals the session's.
 *
 * @example
 * { order: 400, middleware: identityCsrfMiddleware({ allowedOrigins, headerName: 'X-CSRF-Token', peppers }) }
 */
export function identityCsrfMiddleware(options: CsrfOptions): Middleware {
  const names = [...CSRF_QUERY_NAMES, options.headerName.toLowerCase()];
  const maxQuery = options.maxQueryLength ?? 8192;
  return async (exchange, next) => {
    if (queryRejected(exchange, names, maxQuery)) return respondIdentityError(exchange, 'csrf_invalid');
    if (!UNSAFE.has(exchange.method)) return next();
    const cookie = exchange.attributes.get(IDENTITY_ATTRIBUTES.sessionCookiePresent) === true;
    const session = getIdentityContext(exchange)?.session;
    if (!cookie && session === undefined) return next();
    if (!cookie || session === undefined) return respondIdentityError(exchange, 'csrf_invalid');
    const origins = exchange.headerValues('origin');
    const tokens = exchange.headerValues(options.headerName);
    if (origins.length !== 1 || !options.allowedOrigins.includes(origins[0]!) || tokens.length !== 1) {
      return respondIdentityError(exchange, 'csrf_invalid');
    }
    const stored = session.csrfDigest;
    const pepper = stored.keyVersion === null ? undefined : options.peppers.byVersion(stored.keyVersion);
    const digest = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
    if (pepper === undefined || digest === undefined || !verifyCsrfToken(tokens[0], pepper.key, digest)) {
      return respondIdentityError(exchange, 'csrf_invalid');
    }
    await next();
  };
}
