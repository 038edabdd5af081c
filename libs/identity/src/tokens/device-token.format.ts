import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing, KeyRingEntry } from '../runtime/key-ring.resolver.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url } from './base64url.codec.js';
import { DIGEST_DOMAINS } from './digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest, timingSafeEqual } from './keyed-digest.crypto.js';
import { generateSelectorToken, parseSelectorToken, type SelectorToken } from './secret-token.format.js';

/**
 * The two bearer tokens of a device token family (`identity-model.md` §2, §5.5).
 *
 * @example
 * const kind: DeviceTokenKind = 'refresh';
 */
export type DeviceTokenKind = 'access' | 'refresh';

const DOMAINS: Readonly<Record<DeviceTokenKind, string>> = Object.freeze({
  access: DIGEST_DOMAINS.deviceAccessToken,
  refresh: DIGEST_DOMAINS.deviceRefreshToken,
});

/**
 * A freshly issued device access or refresh token: the token, shown once, and what the store keeps.
 *
 * @example
 * const refresh = issueDeviceToken('refresh', runtime, kernel.keys.devicePepper);
 * // store { id: refresh.id, publicSelector: refresh.id, tokenDigest: refresh.tokenDigest }
 */
export interface IssuedDeviceToken {
  /** `<tokenId UUIDv7>.<b64url(32 B)>` (80 chars). */
  readonly token: string;
  /** The token id, which is also its public selector. */
  readonly id: string;
  /** HMAC(device pepper, `tessera-device-<kind>-token-v1` ‖ selector ‖ secret), current key version. */
  readonly tokenDigest: StoredDigest;
}

/**
 * HMAC(device pepper, `tessera-device-access-token-v1` or `tessera-device-refresh-token-v1` ‖
 * selector ‖ secret), length-prefixed. The kind is part of the digest domain, so an access token
 * never verifies as a refresh token and the other way round.
 *
 * @example
 * const digest = digestDeviceToken('access', ring.current.key, parsed.selector, parsed.secret);
 */
export function digestDeviceToken(
  kind: DeviceTokenKind,
  devicePepper: Uint8Array,
  selector: string,
  secret: Uint8Array,
): Buffer {
  return keyedDigest(devicePepper, DOMAINS[kind], selector, secret);
}

/**
 * A new device token of `kind`: a UUIDv7 id (the selector) and 32 CSPRNG secret bytes, with the
 * digest under the device pepper's current version. Only the digest is ever stored.
 *
 * @example
 * const access = issueDeviceToken('access', kernel.runtime, kernel.keys.devicePepper);
 */
export function issueDeviceToken(
  kind: DeviceTokenKind,
  runtime: { readonly clock: IdentityClock; readonly random: RandomSource },
  ring: KeyRing,
): IssuedDeviceToken {
  const { selector, secret, token } = generateSelectorToken(runtime.clock, runtime.random);
  const digest = digestDeviceToken(kind, ring.current.key, selector, secret);
  return {
    token,
    id: selector,
    tokenDigest: storedKeyedDigest(digest, ring.current.version),
  };
}

/**
 * A presented device access or refresh token: the bearer shape (20..512 chars, one `.`), a
 * canonical UUIDv7 selector and exactly 32 secret bytes; `undefined` for anything else. Both kinds
 * share the format; which table the selector is looked up in decides the kind.
 *
 * @example
 * const presented = parseDeviceToken(form.refresh_token);
 * if (presented === undefined) throw new OAuthError('invalid_grant');
 */
export function parseDeviceToken(value: unknown): SelectorToken | undefined {
  return parseSelectorToken(value);
}

/**
 * Constant-time check of a presented token against the stored digest of its row, under the device
 * pepper of the stored key version. An unknown or missing key version, another algorithm or a
 * malformed stored digest never matches.
 *
 * @example
 * // row: the refresh-token row whose public selector is presented.selector
 * if (!deviceTokenMatches('refresh', kernel.keys.devicePepper, presented, row.tokenDigest)) throw new OAuthError('invalid_grant');
 */
export function deviceTokenMatches(
  kind: DeviceTokenKind,
  ring: KeyRing,
  presented: SelectorToken,
  stored: StoredDigest,
): boolean {
  const pepper = stored.keyVersion === null ? undefined : ring.byVersion(stored.keyVersion);
  const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || expected === undefined || stored.algorithm !== 'hmac-sha256') return false;
  return timingSafeEqual(digestDeviceToken(kind, pepper.key, presented.selector, presented.secret), expected);
}

/**
 * The stored digest of a presented device token under one key version of the device pepper.
 *
 * @example
 * const digest = deviceTokenDigest('refresh', ring.current, parseDeviceToken(token)!);
 */
export function deviceTokenDigest(kind: DeviceTokenKind, entry: KeyRingEntry, presented: SelectorToken): StoredDigest {
  return storedKeyedDigest(digestDeviceToken(kind, entry.key, presented.selector, presented.secret), entry.version);
}

/**
 * One digest of a presented device token per key version of the ring, current first: the
 * candidates to look the token up by (a revocation does not know the version it was issued under).
 *
 * @example
 * for (const digest of deviceTokenLookupDigests('access', ring, presented)) { ... }
 */
export function deviceTokenLookupDigests(
  kind: DeviceTokenKind,
  ring: KeyRing,
  presented: SelectorToken,
): StoredDigest[] {
  return ring.entries.map((entry) => deviceTokenDigest(kind, entry, presented));
}
