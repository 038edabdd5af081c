import type { Exchange, Middleware } from '@tessera/web';
import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
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
  /**
   * Paths protected by their own single-use state instead (the federation callbacks: the SAML
   * POST comes from the IdP's page and cannot carry the session's CSRF token; their query may
   * reach 12 KiB). They still refuse CSRF-named query parameters.
   */
  readonly exempt?: (path: string) => boolean;
}

/**
 * Why the query is refused, if it is: a CSRF-named parameter or a query over the length limit on
 * every method; an undecodable parameter on unsafe methods only (a safe method reaches the route,
 * whose own query parser answers it: identity routes 400 `request_invalid`, host routes their own).
 */
function queryRejected(exchange: Exchange, names: readonly string[], maxLength: number, unsafe: boolean): boolean {
  const query = exchange.rawQuery;
  if (query.length > maxLength) return true;
  if (query === '') return false;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const rawName = (eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, ' ');
    let name: string;
    try {
      name = decodeURIComponent(rawName);
      if (eq !== -1 && unsafe) decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      if (unsafe) return true;
      name = lenientDecode(rawName);
    }
    if (names.includes(name.toLowerCase())) return true;
  }
  return false;
}

/** What a lenient parser could read from an undecodable name: ASCII escapes decoded, the rest dropped. */
function lenientDecode(raw: string): string {
  return raw.replace(/%([0-9a-fA-F]{2})?/g, (_, hex: string | undefined) => {
    const code = hex === undefined ? 0x80 : parseInt(hex, 16);
    return code < 0x80 ? String.fromCharCode(code) : '';
  });
}

/**
 * Stage 5 (order 400), CSRF (identity-http §2.2): CSRF-named query parameters and over-long
 * queries are refused on every method, undecodable ones on unsafe methods; a cookie-authenticated unsafe request needs exactly one `Origin` equal
 * to an allowed origin and exactly one `X-CSRF-Token` whose keyed digest equals the session's.
 *
 * @example
 * { order: 400, middleware: identityCsrfMiddleware({ allowedOrigins, headerName: 'X-CSRF-Token', peppers }) }
 */
export function identityCsrfMiddleware(options: CsrfOptions): Middleware {
  const names = [...CSRF_QUERY_NAMES, options.headerName.toLowerCase()];
  const maxQuery = options.maxQueryLength ?? 8192;
  return async (exchange, next) => {
    const unsafe = UNSAFE.has(exchange.method);
    const exempt = options.exempt?.(exchange.path) === true;
    const limit = exempt ? Math.max(maxQuery, IDENTITY_FIXED_LIMITS.oidcCallbackQueryBytes) : maxQuery;
    if (queryRejected(exchange, names, limit, unsafe)) return respondIdentityError(exchange, 'csrf_invalid');
    if (!unsafe || exempt) return next();
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
