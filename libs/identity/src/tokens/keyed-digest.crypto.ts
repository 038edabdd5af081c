import crypto from 'node:crypto';
import type { StoredDigest } from '../store/identity-records.js';
import { encodeBase64Url } from './base64url.codec.js';

/**
 * One field of a digest input: a string (UTF-8) or raw bytes.
 *
 * @example
 * const fields: DigestField[] = ['tessera-session-v1', secretBytes];
 */
export type DigestField = string | Uint8Array;

const MAX_FIELD_BYTES = 0xffffffff;

/**
 * The digest input of `identity-model.md` §2: each field as a 4-byte big-endian length followed
 * by its bytes; the domain string comes first by convention.
 *
 * @example
 * lengthPrefixed('tessera-csrf-v1', tokenBytes); // <00 00 00 0f>tessera-csrf-v1<00 00 00 20><32 bytes>
 */
export function lengthPrefixed(...fields: DigestField[]): Buffer {
  const parts: Buffer[] = [];
  for (const field of fields) {
    const bytes =
      typeof field === 'string'
        ? Buffer.from(field, 'utf8')
        : Buffer.from(field.buffer, field.byteOffset, field.byteLength);
    if (bytes.byteLength > MAX_FIELD_BYTES) throw new RangeError('digest field too large');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.byteLength, 0);
    parts.push(length, bytes);
  }
  return Buffer.concat(parts);
}

/**
 * HMAC-SHA-256 under `key` of the length-prefixed `domain ‖ fields` (32 bytes).
 *
 * @example
 * const digest = keyedDigest(sessionPepper, 'tessera-session-v1', secret);
 */
export function keyedDigest(key: Uint8Array, domain: string, ...fields: DigestField[]): Buffer {
  const hmac = crypto.createHmac('sha256', secretKey(key));
  for (const field of [domain, ...fields]) {
    const bytes = typeof field === 'string' ? Buffer.from(field, 'utf8') : field;
    if (bytes.byteLength > MAX_FIELD_BYTES) throw new RangeError('digest field too large');
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(bytes.byteLength, 0);
    hmac.update(length).update(bytes);
  }
  return hmac.digest();
}

const SECRET_KEYS = new WeakMap<Uint8Array, crypto.KeyObject>();

/** The imported HMAC key of a pepper (imported once per key buffer, not per digest). */
function secretKey(key: Uint8Array): crypto.KeyObject {
  let object = SECRET_KEYS.get(key);
  if (object === undefined) {
    object = crypto.createSecretKey(key);
    SECRET_KEYS.set(key, object);
  }
  return object;
}

/**
 * Constant-time equality of two byte strings. A length mismatch returns `false` without throwing
 * (after comparing `b` with itself, so the work done depends only on the presented length).
 *
 * @example
 * if (!timingSafeEqual(presentedDigest, storedDigest)) throw new IdentityError('invalid_credentials');
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) {
    crypto.timingSafeEqual(b, b);
    return false;
  }
  return crypto.timingSafeEqual(a, b);
}

/**
 * A keyed digest as the store keeps it: HMAC-SHA-256 bytes, base64url-encoded, with the version of
 * the pepper that keyed them (the lookup by a previous version needs it).
 *
 * @example
 * const tokenDigest = storedKeyedDigest(keyedDigest(ring.current.key, DOMAIN, selector, secret), ring.current.version);
 */
export function storedKeyedDigest(bytes: Uint8Array, keyVersion: string): StoredDigest {
  return { algorithm: 'hmac-sha256', encoded: encodeBase64Url(bytes), keyVersion };
}
