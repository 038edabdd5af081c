import type { Exchange } from '@tessera/web';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { IssuedSession } from '../../sessions/session-issuer.js';
import { sessionCookie } from '../../sessions/session-cookie.js';
import type { SessionRecord } from '../../store/identity-records.js';
import { formatTimestamp } from '../../tokens/timestamp.format.js';
import { respondIdentityJson } from '../identity-response.js';

/**
 * Sets the session cookie and returns the safe session metadata for the JSON body; the session
 * secret travels only in the HttpOnly cookie, the CSRF token only in the body.
 */
export function grantSession(kernel: IdentityKernel, exchange: Exchange, issued: IssuedSession, stored: SessionRecord) {
  exchange.appendHeader('set-cookie', sessionCookie(kernel.config.sessionCookie, issued.cookieToken));
  return {
    sessionId: stored.id,
    authenticatedAt: formatTimestamp(stored.authenticatedAt),
    idleExpiresAt: formatTimestamp(stored.idleExpiresAt),
    absoluteExpiresAt: formatTimestamp(stored.absoluteExpiresAt),
    csrfToken: issued.csrfToken,
  };
}

/**
 * Sets the session cookie and answers 200 `SessionCreated` (identity-http §4.5; routes 5, 7, 17, 20).
 *
 * @example
 * respondSessionCreated(kernel, exchange, issued, result.value.session);
 */
export function respondSessionCreated(
  kernel: IdentityKernel,
  exchange: Exchange,
  issued: IssuedSession,
  stored: SessionRecord,
): void {
  const granted = grantSession(kernel, exchange, issued, stored);
  respondIdentityJson(exchange, 200, {
    userId: stored.userId,
    sessionId: granted.sessionId,
    assurance: stored.assurance,
    authenticatedAt: granted.authenticatedAt,
    idleExpiresAt: granted.idleExpiresAt,
    absoluteExpiresAt: granted.absoluteExpiresAt,
    csrfToken: granted.csrfToken,
  });
}
