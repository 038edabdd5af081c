import crypto from 'node:crypto';
import { CoreConfigError } from './core.errors.js';

const TOKEN = /^tcs_[A-Za-z0-9_-]{43}$/;

/**
 * Longest session lifetime a store accepts: 400 days (the cap browsers apply to cookies).
 *
 * @example
 * await store.create(principal, Math.min(requestedTtl, MAX_CORE_SESSION_TTL_SECONDS));
 */
export const MAX_CORE_SESSION_TTL_SECONDS = 400 * 24 * 60 * 60;

/**
 * A new session secret: `tcs_` + 32 CSPRNG bytes in base64url (256 bits).
 *
 * @example
 * const token = generateCoreSessionToken(); // 'tcs_Q2x…'
 */
export function generateCoreSessionToken(): string {
  return `tcs_${crypto.randomBytes(32).toString('base64url')}`;
}

/**
 * `true` when `token` has the shape of a core session token (checked before any lookup).
 *
 * @example
 * if (!isCoreSessionToken(cookieValue)) return null;
 */
export function isCoreSessionToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN.test(token);
}

/**
 * Validates a session lifetime, throwing {@link CoreConfigError} (`invalid_session_ttl`).
 *
 * @example
 * assertCoreSessionTtl(3600);
 */
export function assertCoreSessionTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_CORE_SESSION_TTL_SECONDS) {
    throw new CoreConfigError(
      'invalid_session_ttl',
      `A session TTL must be an integer number of seconds in 1..${MAX_CORE_SESSION_TTL_SECONDS}, got ${String(ttlSeconds)}`,
    );
  }
}
