import crypto from 'node:crypto';
import { timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import {
  REQUIRED_CRYPTO_CAPABILITIES,
  type IdentityCrypto,
  type P256PublicKey,
  type RsaPublicKey,
} from './identity.runtime.js';

// P-256 (secp256r1) domain parameters, FIPS 186-4 D.1.2.3.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
const MIN_RSA_MODULUS_BITS = 2048;
const MAX_RSA_MODULUS_BITS = 16384;

/**
 * The default crypto provider on `node:crypto`.
 *
 * @example
 * const crypto = createNodeIdentityCrypto();
 * crypto.sha256(Buffer.from('abc'));
 */
export function createNodeIdentityCrypto(): IdentityCrypto {
  return {
    capabilities: Object.freeze([...REQUIRED_CRYPTO_CAPABILITIES]),
    sha256: (data) => crypto.createHash('sha256').update(data).digest(),
    hmacSha256: (key, data) => crypto.createHmac('sha256', key).update(data).digest(),
    timingSafeEqual,
    p256PublicKeyValidate: (key) => p256KeyObject(key) !== undefined,
    es256Verify(key, data, signature, format = 'der') {
      const keyObject = p256KeyObject(key);
      if (keyObject === undefined) return false;
      if (format === 'p1363' && signature.byteLength !== 64) return false;
      try {
        return crypto.verify(
          'sha256',
          data,
          { key: keyObject, dsaEncoding: format === 'der' ? 'der' : 'ieee-p1363' },
          signature,
        );
      } catch {
        return false;
      }
    },
    rsaSha256Verify(key, data, signature) {
      const keyObject = rsaKeyObject(key);
      if (keyObject === undefined) return false;
      try {
        return crypto.verify(
          'sha256',
          data,
          { key: keyObject, padding: crypto.constants.RSA_PKCS1_PADDING },
          signature,
        );
      } catch {
        return false;
      }
    },
    ed25519Verify(publicKey, data, signature) {
      if (publicKey.byteLength !== 32 || signature.byteLength !== 64) return false;
      try {
        const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(publicKey) }, format: 'jwk' });
        return crypto.verify(null, data, key, signature);
      } catch {
        return false;
      }
    },
    selfTest: nodeCryptoSelfTest,
  };
}

/**
 * `true` when `(x, y)` are 32-byte field elements satisfying y² = x³ − 3x + b (mod p).
 *
 * @example
 * isOnP256Curve({ x, y }); // false for an off-curve point
 */
export function isOnP256Curve(key: P256PublicKey): boolean {
  if (key.x.byteLength !== 32 || key.y.byteLength !== 32) return false;
  const x = toBigInt(key.x);
  const y = toBigInt(key.y);
  if (x >= P || y >= P) return false;
  const left = (y * y) % P;
  const right = (((x * x) % P) * x - 3n * x + B) % P;
  return left === (right + P) % P;
}

/**
 * Imported P-256 keys by their exact coordinates (`x‖y` in hex): a passkey's key is imported and
 * checked once, not on every assertion. Only keys that passed the curve check and the import are
 * kept; the least recently used goes first past {@link P256_KEY_CACHE_SIZE}.
 */
const P256_KEY_CACHE_SIZE = 4096;
const p256Keys = new Map<string, crypto.KeyObject>();

function p256KeyObject(key: P256PublicKey): crypto.KeyObject | undefined {
  if (key.x.byteLength !== 32 || key.y.byteLength !== 32) return undefined;
  const id =
    Buffer.from(key.x.buffer, key.x.byteOffset, 32).toString('hex') +
    Buffer.from(key.y.buffer, key.y.byteOffset, 32).toString('hex');
  const cached = p256Keys.get(id);
  if (cached !== undefined) {
    p256Keys.delete(id);
    p256Keys.set(id, cached);
    return cached;
  }
  const imported = importP256Key(key);
  if (imported === undefined) return undefined;
  if (p256Keys.size >= P256_KEY_CACHE_SIZE) p256Keys.delete(p256Keys.keys().next().value!);
  p256Keys.set(id, imported);
  return imported;
}

function importP256Key(key: P256PublicKey): crypto.KeyObject | undefined {
  // Checked here as well as by OpenSSL, so the rejection of invalid points never depends on the
  // linked OpenSSL's import behaviour.
  if (!isOnP256Curve(key)) return undefined;
  try {
    return crypto.createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: b64u(key.x), y: b64u(key.y) },
      format: 'jwk',
    });
  } catch {
    return undefined;
  }
}

function rsaKeyObject(key: RsaPublicKey): crypto.KeyObject | undefined {
  const n = stripLeadingZeros(key.n);
  const e = stripLeadingZeros(key.e);
  const bits = n.byteLength === 0 ? 0 : (n.byteLength - 1) * 8 + (32 - Math.clz32(n[0]!));
  if (bits < MIN_RSA_MODULUS_BITS || bits > MAX_RSA_MODULUS_BITS) return undefined;
  if (e.byteLength === 0 || e.byteLength > 4 || (e[e.byteLength - 1]! & 1) === 0 || toBigInt(e) < 3n) return undefined;
  try {
    return crypto.createPublicKey({ key: { kty: 'RSA', n: b64u(n), e: b64u(e) }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

function nodeCryptoSelfTest(): boolean {
  try {
    const hashes = crypto.getHashes();
    if (!hashes.includes('sha256')) return false;
    if (!crypto.getCurves().includes('prime256v1')) return false;
    const digest = crypto.createHash('sha256').update('abc').digest('hex');
    return digest === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
  } catch {
    return false;
  }
}

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.byteLength === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function stripLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.byteLength && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
