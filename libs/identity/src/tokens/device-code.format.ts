import type { RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { DIGEST_DOMAINS } from './digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest } from './keyed-digest.crypto.js';
import { TOKEN_SECRET_BYTES } from './secret-token.format.js';

/**
 * The 32 symbols of a user code (`identity-model.md` §2): digits 2–9 and A–Z without I and O, so
 * that no two symbols are easily confused.
 *
 * @example
 * USER_CODE_ALPHABET.length; // 32
 */
export const USER_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * Random bytes behind one user code: 40 bits, eight 5-bit symbols.
 *
 * @example
 * const bytes = runtime.random.bytes(USER_CODE_BYTES);
 */
export const USER_CODE_BYTES = 5;

/**
 * Longest raw user-code input looked at; anything longer is rejected before it is trimmed.
 *
 * @example
 * if (input.length > USER_CODE_MAX_INPUT_CHARS) return undefined;
 */
export const USER_CODE_MAX_INPUT_CHARS = 64;

const USER_CODE_INPUT = /^([2-9A-HJ-NP-Za-hj-np-z]{4})-?([2-9A-HJ-NP-Za-hj-np-z]{4})$/;

/**
 * The codes of a new device-authorization grant and the digests the store keeps (under the
 * device pepper's current version). `deviceCode` and `userCode` are shown once, to the client.
 *
 * @example
 * const codes = issueDeviceCodes(runtime.random, kernel.keys.devicePepper);
 * // store codes.deviceCodeDigest / codes.userCodeDigest; answer codes.deviceCode / codes.userCode
 */
export interface IssuedDeviceCodes {
  /** b64url(32 random bytes), 43 chars. */
  readonly deviceCode: string;
  /** `XXXX-XXXX` from {@link USER_CODE_ALPHABET}. */
  readonly userCode: string;
  /** HMAC(device pepper, `tessera-device-code-v1` ‖ bytes), current key version. */
  readonly deviceCodeDigest: StoredDigest;
  /** HMAC(device pepper, `tessera-device-user-code-v1` ‖ `XXXX-XXXX`), current key version. */
  readonly userCodeDigest: StoredDigest;
}

/**
 * A new device code (b64url of 32 CSPRNG bytes, 43 chars) with its bytes.
 *
 * @example
 * const { token, bytes } = generateDeviceCode(runtime.random);
 */
export function generateDeviceCode(random: RandomSource): { readonly token: string; readonly bytes: Buffer } {
  const bytes = exactBytes(random, TOKEN_SECRET_BYTES);
  return { token: encodeBase64Url(bytes), bytes };
}

/**
 * The 32 bytes of a presented device code; `undefined` unless it is strict unpadded base64url of
 * exactly 32 bytes.
 *
 * @example
 * const bytes = parseDeviceCode(form.device_code);
 * if (bytes === undefined) throw new OAuthError('invalid_grant');
 */
export function parseDeviceCode(value: unknown): Buffer | undefined {
  return decodeBase64Url(value, { minBytes: TOKEN_SECRET_BYTES, maxBytes: TOKEN_SECRET_BYTES });
}

/**
 * HMAC(device pepper, `tessera-device-code-v1` ‖ bytes) (length-prefixed fields).
 *
 * @example
 * const digest = digestDeviceCode(ring.current.key, bytes);
 */
export function digestDeviceCode(devicePepper: Uint8Array, bytes: Uint8Array): Buffer {
  return keyedDigest(devicePepper, DIGEST_DOMAINS.deviceCode, bytes);
}

/**
 * A new user code: 5 CSPRNG bytes read as eight 5-bit groups, each an index into the 32-symbol
 * alphabet. 32 is a power of two, so every symbol is exactly equally likely (no modulo bias).
 *
 * @example
 * generateUserCode(runtime.random); // 'WDJB-MJHT'
 */
export function generateUserCode(random: RandomSource): string {
  return formatUserCode(exactBytes(random, USER_CODE_BYTES));
}

/**
 * The user code spelled by 5 bytes: bits taken most significant first, 5 per symbol, `-` after
 * the fourth symbol.
 *
 * @example
 * formatUserCode(new Uint8Array(5)); // '2222-2222'
 */
export function formatUserCode(bytes: Uint8Array): string {
  if (bytes.byteLength !== USER_CODE_BYTES) throw new RangeError('a user code takes exactly 5 bytes');
  let bits = 0;
  let width = 0;
  let code = '';
  for (const byte of bytes) {
    bits = (bits << 8) | byte;
    width += 8;
    while (width >= 5) {
      width -= 5;
      code += USER_CODE_ALPHABET[(bits >>> width) & 0x1f];
      if (code.length === 4) code += '-';
    }
    bits &= (1 << width) - 1;
  }
  return code;
}

/**
 * The canonical `XXXX-XXXX` form of what a user typed: surrounding whitespace trimmed, letters in
 * either case, the dash optional. Anything else (another length, a symbol outside the alphabet
 * such as `0`, `1`, `I`, `O`, non-ASCII look-alikes, inner spaces) is `undefined`.
 *
 * @example
 * normalizeUserCode(' wdjb mjht '); // undefined (inner space)
 * normalizeUserCode(' wdjbmjht\n'); // 'WDJB-MJHT'
 */
export function normalizeUserCode(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > USER_CODE_MAX_INPUT_CHARS) return undefined;
  const match = USER_CODE_INPUT.exec(value.trim());
  if (match === null) return undefined;
  // Only ASCII letters can reach this point, so toUpperCase cannot map a look-alike into the alphabet.
  return `${match[1]!.toUpperCase()}-${match[2]!.toUpperCase()}`;
}

/**
 * HMAC(device pepper, `tessera-device-user-code-v1` ‖ code) of a canonical `XXXX-XXXX` code (see
 * {@link normalizeUserCode}); a non-canonical code is a programming error and throws.
 *
 * @example
 * const digest = digestUserCode(ring.current.key, normalizeUserCode(input)!);
 */
export function digestUserCode(devicePepper: Uint8Array, canonicalCode: string): Buffer {
  if (normalizeUserCode(canonicalCode) !== canonicalCode) throw new RangeError('user code is not canonical');
  return keyedDigest(devicePepper, DIGEST_DOMAINS.deviceUserCode, canonicalCode);
}

/**
 * New device and user codes with their digests under the device pepper's current version.
 *
 * @example
 * const codes = issueDeviceCodes(runtime.random, kernel.keys.devicePepper);
 */
export function issueDeviceCodes(random: RandomSource, ring: KeyRing): IssuedDeviceCodes {
  const device = generateDeviceCode(random);
  const userCode = generateUserCode(random);
  const { key, version } = ring.current;
  return {
    deviceCode: device.token,
    userCode,
    deviceCodeDigest: storedKeyedDigest(digestDeviceCode(key, device.bytes), version),
    userCodeDigest: storedKeyedDigest(digestUserCode(key, userCode), version),
  };
}

/**
 * The digests to look a presented device code up by, one per key version of the ring, current
 * first (`identity-model.md` §2: lookups try the current version, then previous ones). The store
 * matches algorithm, digest and key version together; the digest is keyed, so an index lookup on
 * it reveals nothing about the code.
 *
 * @example
 * const bytes = parseDeviceCode(form.device_code);
 * const digests = bytes === undefined ? [] : deviceCodeLookupDigests(kernel.keys.devicePepper, bytes);
 */
export function deviceCodeLookupDigests(ring: KeyRing, bytes: Uint8Array): readonly StoredDigest[] {
  return ring.entries.map((entry) => storedKeyedDigest(digestDeviceCode(entry.key, bytes), entry.version));
}

/**
 * The digests to look a typed user code up by, one per key version, current first; `undefined`
 * when the input is not a user code (see {@link normalizeUserCode}).
 *
 * @example
 * const digests = userCodeLookupDigests(ring, body.userCode);
 * if (digests === undefined) throw new IdentityError('not_found');
 */
export function userCodeLookupDigests(ring: KeyRing, input: unknown): readonly StoredDigest[] | undefined {
  const code = normalizeUserCode(input);
  if (code === undefined) return undefined;
  return ring.entries.map((entry) => storedKeyedDigest(digestUserCode(entry.key, code), entry.version));
}

function exactBytes(random: RandomSource, size: number): Buffer {
  const bytes = random.bytes(size);
  if (bytes.byteLength !== size) throw new RangeError('random source returned the wrong number of bytes');
  return Buffer.from(bytes);
}
