import type { Exchange, Middleware } from '@tessera/web';
import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
import { IdentityError } from '../errors/identity.errors.js';
import { isToken43 } from '../federation/federation-keys.js';
import { cookieValues } from '../sessions/session-cookie.js';
import { parseOAuthForm } from './oauth-form.js';
import { readTypedBody } from './route-kit.js';

/** The state cookies (identity-http §9.1). */
export const FEDERATION_STATE_COOKIES = Object.freeze({
  oidc: '__Host-tessera_oidc_state',
  saml: '__Host-tessera_saml_state',
});

/** The CSRF hand-off cookie of a federated sign-in (identity-http §9.1). */
export const FEDERATION_CSRF_COOKIE = '__Host-tessera_csrf';

const FEDERATION_PATH = /^\/identity\/v1\/(?:federation\/|organizations\/[^/]+\/federation\/)/;
const CALLBACK_PATH = /^\/identity\/v1\/federation\/[^/]+\/[^/]+\/callback$/;

/**
 * `true` for a federation callback path: it is protected by its single-use server state and the
 * state cookie, not by the session CSRF token (the SAML POST comes from the IdP's page), and its
 * query may reach 12 KiB.
 *
 * @example
 * isFederationCallbackPath('/identity/v1/federation/0190…/okta/callback'); // true
 */
export function isFederationCallbackPath(path: string): boolean {
  return CALLBACK_PATH.test(path);
}

/**
 * Stage 1½ on `/identity/v1/federation/**` and the provider routes
 * (`/identity/v1/organizations/{orgId}/federation/**`): every answer, errors included, carries
 * `Cache-Control: no-store`, `Pragma: no-cache`, `Referrer-Policy: no-referrer` and
 * `X-Content-Type-Options: nosniff` (identity-http §6).
 *
 * @example
 * { order: 150, middleware: federationResponseHeaders }
 */
export const federationResponseHeaders: Middleware = async (exchange, next) => {
  if (FEDERATION_PATH.test(exchange.path)) {
    exchange.setHeader('cache-control', 'no-store');
    exchange.setHeader('pragma', 'no-cache');
    exchange.setHeader('referrer-policy', 'no-referrer');
    exchange.setHeader('x-content-type-options', 'nosniff');
  }
  return next();
};

/**
 * `Set-Cookie` of a state cookie: Secure, HttpOnly, Path=/, SameSite=Lax (OIDC) or None (SAML:
 * the IdP posts back cross-site), Max-Age = `maxAgeSeconds` (0 clears it).
 *
 * @example
 * exchange.appendHeader('set-cookie', stateCookie('oidc', selector, 300));
 */
export function stateCookie(protocol: 'oidc' | 'saml', value: string, maxAgeSeconds: number): string {
  const sameSite = protocol === 'oidc' ? 'Lax' : 'None';
  return `${FEDERATION_STATE_COOKIES[protocol]}=${value}; Max-Age=${maxAgeSeconds}; Path=/; Secure; HttpOnly; SameSite=${sameSite}`;
}

/**
 * `Set-Cookie` of `__Host-tessera_csrf`: Secure, **not** HttpOnly (the success page copies it to
 * `sessionStorage`), SameSite=Lax, Path=/, Max-Age `federationCsrfCookieSeconds`.
 *
 * @example
 * exchange.appendHeader('set-cookie', federationCsrfCookie(issued.csrfToken, 300));
 */
export function federationCsrfCookie(csrfToken: string, maxAgeSeconds: number): string {
  return `${FEDERATION_CSRF_COOKIE}=${csrfToken}; Max-Age=${maxAgeSeconds}; Path=/; Secure; SameSite=Lax`;
}

/**
 * The selector in the request's state cookie of `protocol`, or `undefined` when it is missing,
 * repeated or not 43 base64url chars.
 *
 * @example
 * const selector = stateSelector(exchange, 'oidc');
 */
export function stateSelector(exchange: Exchange, protocol: 'oidc' | 'saml'): string | undefined {
  const values = cookieValues(exchange.headerValues('cookie'), FEDERATION_STATE_COOKIES[protocol]);
  return values.length === 1 && isToken43(values[0]) ? values[0] : undefined;
}

/** A request that must carry neither a query nor a body (start, metadata): else 400. */
export function requireNoQueryOrBody(exchange: Exchange): void {
  if (exchange.rawQuery !== '' || exchange.path.includes('?')) throw new IdentityError('request_invalid');
  const lengths = exchange.headerValues('content-length');
  const chunked = exchange.headerValues('transfer-encoding').length > 0;
  if (chunked || lengths.some((length) => length.trim() !== '0')) throw new IdentityError('request_invalid');
}

// `session_state` (OpenID Connect Session Management) is sent by Keycloak and Entra ID whatever the
// client asked; it is accepted and ignored.
const SUCCESS_NAMES = new Set(['code', 'state', 'iss', 'session_state']);
const ERROR_NAMES = new Set(['error', 'error_description', 'error_uri', 'state', 'iss', 'session_state']);

/**
 * The OIDC callback query (identity-http §6): ≤ 12 KiB; either exactly `code` (1..8192) and
 * `state` (16..512) plus an optional RFC 9207 `iss` (and `session_state`, which Keycloak and Entra
 * ID always send, ignored), or an authorization error response (`error`
 * with optional `error_description`, `error_uri`, `state`, `iss`). Repeated, unknown, empty or
 * undecodable parameters and a body are 400.
 *
 * @example
 * const query = oidcCallbackQuery(exchange); // URLSearchParams with code, state[, iss]
 */
export function oidcCallbackQuery(exchange: Exchange): URLSearchParams {
  const raw = exchange.rawQuery;
  if (raw === '' || Buffer.byteLength(raw) > IDENTITY_FIXED_LIMITS.oidcCallbackQueryBytes) {
    throw new IdentityError('request_invalid');
  }
  if (exchange.headerValues('content-length').some((v) => v.trim() !== '0')) throw new IdentityError('request_invalid');
  const query = new URLSearchParams();
  for (const part of raw.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new IdentityError('request_invalid');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(part.slice(0, eq).replace(/\+/g, ' '));
      value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      throw new IdentityError('request_invalid');
    }
    if (query.has(name) || value === '' || value.length > 8192) throw new IdentityError('request_invalid');
    query.append(name, value);
  }
  const names = [...query.keys()];
  const isError = query.has('error');
  const allowed = isError ? ERROR_NAMES : SUCCESS_NAMES;
  if (!names.every((name) => allowed.has(name))) throw new IdentityError('request_invalid');
  if (!isError) {
    const code = query.get('code');
    const state = query.get('state');
    if (code === null || state === null || code.length > 8192 || state.length < 16 || state.length > 512) {
      throw new IdentityError('request_invalid');
    }
  }
  return query;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * The SAML HTTP-POST callback form (identity-http §6): one `application/x-www-form-urlencoded`
 * content type, body ≤ 8 MiB, exactly one `SAMLResponse` (≤ 4 MiB chars) and one `RelayState`
 * and nothing else; anything else is 400.
 *
 * @example
 * const { samlResponse, relayState } = await samlCallbackForm(exchange);
 */
export async function samlCallbackForm(exchange: Exchange): Promise<{ samlResponse: string; relayState: string }> {
  const bytes = await readTypedBody(exchange, FORM_TYPE, IDENTITY_FIXED_LIMITS.samlFormBytes);
  const form = parseOAuthForm(bytes, ['SAMLResponse', 'RelayState'], {
    maxValueChars: IDENTITY_FIXED_LIMITS.samlResponseChars,
    rejectUnknown: true,
  });
  const samlResponse = form?.SAMLResponse;
  const relayState = form?.RelayState;
  if (samlResponse === undefined || relayState === undefined || relayState.length > 80) {
    throw new IdentityError('request_invalid');
  }
  return { samlResponse, relayState };
}
