const ALPHABET = /^[A-Za-z0-9_-]*$/;
const VALUES = new Int8Array(128).fill(-1);
for (const [index, char] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) {
  VALUES[char.charCodeAt(0)] = index;
}

/**
 * Bounds for {@link decodeBase64Url}. `maxBytes` is mandatory so that every decode is bounded.
 *
 * @example
 * decodeBase64Url(value, { maxBytes: 64 });
 */
export interface Base64UrlDecodeOptions {
  /** Largest accepted decoded size; checked from the string length before anything is allocated. */
  maxBytes: number;
  /** Smallest accepted decoded size. @default 0 */
  minBytes?: number;
}

/**
 * Strict unpadded base64url (RFC 4648 §5) of `bytes`.
 *
 * @example
 * encodeBase64Url(new Uint8Array([0xfb, 0xff])); // '-_8'
 */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * The decoded size of a base64url string of `length` characters (`undefined` for length % 4 == 1).
 *
 * @example
 * base64UrlDecodedLength(43); // 32
 */
export function base64UrlDecodedLength(length: number): number | undefined {
  if (length % 4 === 1) return undefined;
  return Math.floor((length * 3) / 4);
}

/**
 * Strict unpadded base64url decoder (`identity-http.md` §1): rejects `=`, characters outside the
 * alphabet, length % 4 == 1, non-zero trailing bits and non-strings, and checks the size bounds
 * before allocating. Returns `undefined` for any rejected input.
 *
 * @example
 * const secret = decodeBase64Url(token, { minBytes: 32, maxBytes: 32 });
 * if (secret === undefined) throw new IdentityError('invalid_credentials');
 */
export function decodeBase64Url(value: unknown, options: Base64UrlDecodeOptions): Buffer | undefined {
  if (typeof value !== 'string') return undefined;
  const size = base64UrlDecodedLength(value.length);
  if (size === undefined || size > options.maxBytes || size < (options.minBytes ?? 0)) return undefined;
  if (!ALPHABET.test(value)) return undefined;
  const remainder = value.length % 4;
  if (remainder !== 0) {
    // The last character carries 4 (remainder 2) or 2 (remainder 3) unused low bits; they must be 0.
    const last = VALUES[value.charCodeAt(value.length - 1)]!;
    const unusedMask = remainder === 2 ? 0x0f : 0x03;
    if ((last & unusedMask) !== 0) return undefined;
  }
  return Buffer.from(value, 'base64url');
}

/**
 * `true` when `value` is canonical unpadded base64url of exactly `bytes` bytes.
 *
 * @example
 * isBase64UrlOfLength(csrfToken, 32); // true for a 43-character token
 */
export function isBase64UrlOfLength(value: unknown, bytes: number): value is string {
  return decodeBase64Url(value, { minBytes: bytes, maxBytes: bytes }) !== undefined;
}
