import type { SessionCookieConfig } from '../config/identity.config.js';

const SAME_SITE = { strict: 'Strict', lax: 'Lax', none: 'None' } as const;

function attributes(settings: SessionCookieConfig): string {
  const parts = [`Path=${settings.path}`];
  if (settings.domain !== undefined) parts.push(`Domain=${settings.domain}`);
  if (settings.secure) parts.push('Secure');
  parts.push('HttpOnly', `SameSite=${SAME_SITE[settings.sameSite]}`);
  return parts.join('; ');
}

/**
 * `Set-Cookie` value carrying a session token: a session cookie (no Max-Age, no Expires).
 *
 * @example
 * exchange.appendHeader('set-cookie', sessionCookie(settings, issued.cookieToken));
 */
export function sessionCookie(settings: SessionCookieConfig, token: string): string {
  return `${settings.name}=${token}; ${attributes(settings)}`;
}

/** `Set-Cookie` value clearing the session cookie (`Max-Age=0`). */
export function clearedSessionCookie(settings: SessionCookieConfig): string {
  return `${settings.name}=; Max-Age=0; ${attributes(settings)}`;
}

/**
 * Every value of cookie `name` across the request's `Cookie` headers, in order; callers treat
 * more than one as invalid credentials.
 *
 * @example
 * const values = cookieValues(exchange.headerValues('cookie'), '__Host-tessera_session');
 */
export function cookieValues(cookieHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (const header of cookieHeaders) {
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      if (pair.slice(0, eq).trim() === name) values.push(pair.slice(eq + 1).trim());
    }
  }
  return values;
}
