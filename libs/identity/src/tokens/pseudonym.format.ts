import { encodeBase64Url } from './base64url.codec.js';
import { canonicalIpAddress } from './client-address.format.js';
import { DIGEST_DOMAINS } from './digest-domains.constants.js';
import { keyedDigest } from './keyed-digest.crypto.js';

/**
 * User-Agent values are truncated to this many code points before pseudonymizing.
 *
 * @example
 * truncateCodePoints(userAgent, USER_AGENT_MAX_CODE_POINTS);
 */
export const USER_AGENT_MAX_CODE_POINTS = 2048;

/**
 * The audit pseudonym of a User-Agent: `v1.` + b64url(HMAC(audit key,
 * `tessera-audit-user-agent-v1` ‖ value truncated to 2048 code points)).
 *
 * @example
 * event.userAgent = pseudonymizeUserAgent(keys.auditKey, exchange.header('user-agent') ?? '');
 */
export function pseudonymizeUserAgent(auditKey: Uint8Array, userAgent: string): string {
  const truncated = truncateCodePoints(userAgent, USER_AGENT_MAX_CODE_POINTS);
  return `v1.${encodeBase64Url(keyedDigest(auditKey, DIGEST_DOMAINS.auditUserAgent, truncated))}`;
}

/**
 * The audit pseudonym of a client address: `v1.` + b64url(HMAC(audit key,
 * `tessera-audit-client-address-v1` ‖ address)). IP addresses are canonicalised first, so
 * `::ffff:192.0.2.1` and `192.0.2.1` give the same pseudonym.
 *
 * @example
 * event.clientAddress = pseudonymizeClientAddress(keys.auditKey, peer.address);
 */
export function pseudonymizeClientAddress(auditKey: Uint8Array, address: string): string {
  const value = canonicalIpAddress(address) ?? address;
  return `v1.${encodeBase64Url(keyedDigest(auditKey, DIGEST_DOMAINS.auditClientAddress, value))}`;
}

/**
 * The limiter bucket key (`identity-http.md` §10): `<policy>:` + b64url(HMAC(audit key,
 * `tessera-rate-limit-v1` ‖ policy ‖ subject)). No raw address or user id is stored. For
 * `oauth_token` the subject is `<peer> <client_id>` (a client id is visible ASCII, never a space).
 *
 * @example
 * const key = rateLimitKey(keys.auditKey, 'passkey_auth_start', rateLimitPeer(peer.address));
 */
export function rateLimitKey(auditKey: Uint8Array, policy: string, subject: string): string {
  return `${policy}:${encodeBase64Url(keyedDigest(auditKey, DIGEST_DOMAINS.rateLimit, policy, subject))}`;
}

/**
 * `value` cut to at most `max` Unicode code points (never splits a surrogate pair).
 *
 * @example
 * truncateCodePoints('a😀b', 2); // 'a😀'
 */
export function truncateCodePoints(value: string, max: number): string {
  if (value.length <= max) return value;
  let count = 0;
  let end = 0;
  for (const char of value) {
    if (count === max) break;
    count++;
    end += char.length;
  }
  return value.slice(0, end);
}
