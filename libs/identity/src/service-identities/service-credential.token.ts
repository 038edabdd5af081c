import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { DIGEST_DOMAINS } from '../tokens/digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest, timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateSelectorToken, parseSelectorToken, type SelectorToken } from '../tokens/secret-token.format.js';

/**
 * A freshly issued service credential: the token, shown once, and what the store keeps.
 *
 * @example
 * const { token, id, secretDigest } = issueServiceCredentialSecret(runtime, keys.servicePepper);
 */
export interface IssuedServiceCredentialSecret {
  /** `<credentialId UUIDv7>.<b64url(32 B)>` (80 chars). */
  readonly token: string;
  /** The credential id, which is also its public prefix. */
  readonly id: string;
  /** HMAC(service pepper, `tessera-service-credential-v1` ‖ prefix ‖ secret) under the current key version. */
  readonly secretDigest: StoredDigest;
}

/**
 * The keyed digest of a service credential secret (identity-model §2): HMAC-SHA-256 under the
 * service pepper of `tessera-service-credential-v1` ‖ public prefix ‖ secret (length-prefixed).
 *
 * @example
 * const digest = digestServiceCredential(ring.current.key, credentialId, secret);
 */
export function digestServiceCredential(servicePepper: Uint8Array, publicPrefix: string, secret: Uint8Array): Buffer {
  return keyedDigest(servicePepper, DIGEST_DOMAINS.serviceCredential, publicPrefix, secret);
}

/**
 * A new service credential: a UUIDv7 id (the public prefix), 32 CSPRNG bytes of secret, and the
 * secret's digest under the current service pepper. Only the digest is ever stored.
 *
 * @example
 * const issued = issueServiceCredentialSecret(kernel.runtime, kernel.keys.servicePepper);
 */
export function issueServiceCredentialSecret(
  runtime: { clock: IdentityClock; random: RandomSource },
  ring: KeyRing,
): IssuedServiceCredentialSecret {
  const { selector, secret, token } = generateSelectorToken(runtime.clock, runtime.random);
  const digest = digestServiceCredential(ring.current.key, selector, secret);
  return {
    token,
    id: selector,
    secretDigest: storedKeyedDigest(digest, ring.current.version),
  };
}

/**
 * A presented service credential: a canonical UUIDv7 prefix and exactly 32 secret bytes, else
 * `undefined`.
 *
 * @example
 * const parsed = parseServiceCredential(bearer);
 */
export function parseServiceCredential(value: string): SelectorToken | undefined {
  return parseSelectorToken(value);
}

/**
 * Constant-time check of a presented secret against the stored digest under the pepper of the
 * stored key version (an unknown version never matches).
 *
 * @example
 * if (!serviceCredentialMatches(ring, parsed, credential.secretDigest)) return fail('invalid_credentials');
 */
export function serviceCredentialMatches(ring: KeyRing, presented: SelectorToken, stored: StoredDigest): boolean {
  const pepper = stored.keyVersion === null ? undefined : ring.byVersion(stored.keyVersion);
  const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || expected === undefined || stored.algorithm !== 'hmac-sha256') return false;
  return timingSafeEqual(digestServiceCredential(pepper.key, presented.selector, presented.secret), expected);
}
