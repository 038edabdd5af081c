import type { Exchange } from '@tessera/web';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { CoreConfigError } from './core.errors.js';
import type { CorePrincipal } from './principal.js';
import type { CoreSession, CoreSessionGrant, CoreSessionStore } from './session-store.js';
import { isCoreSessionToken } from './session-token.js';

/**
 * Options of {@link SessionCookieAuthenticationProvider}.
 *
 * @example
 * new SessionCookieAuthenticationProvider({ store, cookieName: '__Host-ops_session', sameSite: 'Lax' });
 */
export interface SessionCookieAuthenticationOptions {
  store: CoreSessionStore;
  /** Cookie carrying the session token; identity's cookie names are refused. @default '__Host-tessera_core_session' */
  cookieName?: string;
  /** `SameSite` of the cookies this provider writes. @default 'Strict' */
  sameSite?: 'Strict' | 'Lax';
  /** Clock for `Max-Age`. @default () => new Date() */
  clock?: () => Date;
}

/**
 * The `exchange.attributes` key under which {@link SessionCookieAuthenticationProvider} stores the
 * {@link CoreSession} it authenticated (e.g. so a logout route can revoke it).
 *
 * @example
 * const session = exchange.attributes.get(CORE_SESSION_ATTRIBUTE) as CoreSession | undefined;
 */
export const CORE_SESSION_ATTRIBUTE = 'tessera.core.session';

/**
 * The core session a {@link SessionCookieAuthenticationProvider} authenticated on this exchange.
 *
 * @example
 * router.post('/ops/logout', requireCorePrincipal(cookies), async (ex) => {
 *   await store.revoke(getCoreSession(ex)!.id);
 *   ex.respond({ status: 204, headers: { 'set-cookie': cookies.clearingCookie() } });
 * });
 */
export function getCoreSession(exchange: Exchange): CoreSession | undefined {
  return exchange.attributes.get(CORE_SESSION_ATTRIBUTE) as CoreSession | undefined;
}

const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const IDENTITY_COOKIES = new Set([
  '__host-tessera_session',
  '__host-tessera_ceremony',
  '__host-tessera_oidc_state',
  '__host-tessera_saml_state',
  '__host-tessera_csrf',
]);

/**
 * Authenticates a core session token from a cookie through a {@link CoreSessionStore}. A missing,
 * repeated or malformed cookie, or an unknown, expired or revoked session → `null` (401). Writes
 * `HttpOnly; Secure; SameSite=Strict` cookies; it never reads or writes identity's session cookie.
 *
 * @example
 * const sessions = new SessionCookieAuthenticationProvider({ store });
 * const grant = await store.create(principal, 3600);
 * exchange.appendHeader('set-cookie', sessions.sessionCookie(grant));
 */
export class SessionCookieAuthenticationProvider implements CoreAuthenticationProvider {
  /** The cookie name in use. */
  readonly cookieName: string;
  private readonly store: CoreSessionStore;
  private readonly sameSite: 'Strict' | 'Lax';
  private readonly clock: () => Date;

  constructor(options: SessionCookieAuthenticationOptions) {
    const store = options?.store;
    if (store === null || typeof store !== 'object' || typeof store.findByToken !== 'function')
      invalid('store must implement CoreSessionStore');
    const cookieName = options.cookieName ?? '__Host-tessera_core_session';
    if (!COOKIE_NAME.test(cookieName)) invalid(`cookieName ${JSON.stringify(cookieName)} is not a valid cookie name`);
    if (IDENTITY_COOKIES.has(cookieName.toLowerCase()))
      invalid(`cookieName ${cookieName} belongs to @tessera/identity; a core session is never an identity session`);
    const sameSite = options.sameSite ?? 'Strict';
    if (sameSite !== 'Strict' && sameSite !== 'Lax') invalid("sameSite must be 'Strict' or 'Lax'");
    this.store = store;
    this.cookieName = cookieName;
    this.sameSite = sameSite;
    this.clock = options.clock ?? (() => new Date());
  }

  async authenticate(exchange: Exchange): Promise<CorePrincipal | null> {
    const token = this.cookieValue(exchange);
    if (token === null || !isCoreSessionToken(token)) return null;
    const session = await this.store.findByToken(token);
    if (session === null) return null;
    exchange.attributes.set(CORE_SESSION_ATTRIBUTE, session);
    return session.principal;
  }

  /** The `Set-Cookie` value installing `grant`'s token until the session expires. */
  sessionCookie(grant: CoreSessionGrant): string {
    const maxAge = Math.max(0, Math.floor((grant.expiresAt.getTime() - this.clock().getTime()) / 1000));
    return `${this.cookieName}=${grant.token}; Path=/; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=${this.sameSite}`;
  }

  /** The `Set-Cookie` value removing the session cookie (send it after revoking the session). */
  clearingCookie(): string {
    return `${this.cookieName}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=${this.sameSite}`;
  }

  /** The single value of the cookie; `null` when absent or sent more than once (ambiguous). */
  private cookieValue(exchange: Exchange): string | null {
    let found: string | null = null;
    let count = 0;
    for (const header of exchange.headerValues('cookie')) {
      for (const pair of header.split(';')) {
        const eq = pair.indexOf('=');
        if (eq === -1 || pair.slice(0, eq).trim() !== this.cookieName) continue;
        count += 1;
        found = pair.slice(eq + 1).trim();
      }
    }
    return count === 1 ? found : null;
  }
}

function invalid(message: string): never {
  throw new CoreConfigError('invalid_provider_options', `SessionCookieAuthenticationProvider: ${message}`);
}
