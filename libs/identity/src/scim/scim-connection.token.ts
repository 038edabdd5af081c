import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { DIGEST_DOMAINS } from '../tokens/digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest, timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateSelectorToken, parseSelectorToken, type SelectorToken } from '../tokens/secret-token.format.js';

/** A connection token just issued: shown once; only `secretDigest` is stored. */
export interface IssuedScimToken {
  /** `<tokenId UUIDv7>.<b64url(32 B)>` (80 chars). */
  readonly token: string;
  readonly id: string;
  /** HMAC(service pepper, `tessera-scim-token-v1` ‖ token id ‖ secret) under the current key version. */
  readonly secretDigest: StoredDigest;
}

/**
 * The keyed digest of a SCIM connection token's secret, bound to the token id.
 *
 * @example
 * const digest = digestScimToken(ring.current.key, tokenId, secret);
 */
export function digestScimToken(pepper: Uint8Array, tokenId: string, secret: Uint8Array): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.scimToken, tokenId, secret);
}

/**
 * A new connection token from the runtime CSPRNG, digested under the current service pepper.
 *
 * @example
 * const { token, id, secretDigest } = issueScimToken(kernel.runtime, kernel.keys.servicePepper);
 */
export function issueScimToken(
  runtime: { clock: IdentityClock; random: RandomSource },
  ring: KeyRing,
): IssuedScimToken {
  const { selector, secret, token } = generateSelectorToken(runtime.clock, runtime.random);
  return {
    token,
    id: selector,
    secretDigest: storedKeyedDigest(digestScimToken(ring.current.key, selector, secret), ring.current.version),
  };
}

/**
 * A presented bearer in the connection-token shape, else `undefined`.
 *
 * @example
 * const presented = parseScimToken(bearer);
 */
export function parseScimToken(value: string): SelectorToken | undefined {
  return parseSelectorToken(value);
}

/**
 * Constant-time check of a presented token against its stored digest, under the pepper of the
 * stored key version (an unknown version never matches).
 *
 * @example
 * if (!scimTokenMatches(ring, presented, grant.token.secretDigest)) return null;
 */
export function scimTokenMatches(ring: KeyRing, presented: SelectorToken, stored: StoredDigest): boolean {
  const pepper = stored.keyVersion === null ? undefined : ring.byVersion(stored.keyVersion);
  const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || expected === undefined || stored.algorithm !== 'hmac-sha256') return false;
  return timingSafeEqual(digestScimToken(pepper.key, presented.selector, presented.secret), expected);
}
