import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import { SELF_TEST_VECTORS as V } from './self-test.vectors.js';

const b64 = (value: string): Buffer => Buffer.from(value, 'base64url');
const message = Buffer.from(V.message);
const tampered = Buffer.from(V.tamperedMessage);

describe('embedded self-test vectors', () => {
  it('hold the known answers of identity-model §10', () => {
    expect(crypto.createHash('sha256').update(V.sha256.input).digest('hex')).toBe(V.sha256.hex);
    expect(crypto.createHmac('sha256', V.hmacSha256.key).update(V.hmacSha256.input).digest('hex')).toBe(
      V.hmacSha256.hex,
    );
  });

  it('hold a P-256 key on the curve and an off-curve point OpenSSL refuses', () => {
    const key = crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: V.p256.x, y: V.p256.y }, format: 'jwk' });
    expect(key.asymmetricKeyType).toBe('ec');
    expect(() =>
      crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: V.p256.x, y: V.p256.offCurveY }, format: 'jwk' }),
    ).toThrow();
  });

  it('hold an ES256 signature valid for the message only', () => {
    const key = crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: V.p256.x, y: V.p256.y }, format: 'jwk' });
    const signature = b64(V.p256.es256DerSignature);
    expect(crypto.verify('sha256', message, { key, dsaEncoding: 'der' }, signature)).toBe(true);
    expect(crypto.verify('sha256', tampered, { key, dsaEncoding: 'der' }, signature)).toBe(false);
  });

  it('hold a 2048-bit RSA key and an RS256 signature valid for the message only', () => {
    const key = crypto.createPublicKey({ key: { kty: 'RSA', n: V.rsa.n, e: V.rsa.e }, format: 'jwk' });
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(crypto.verify('sha256', message, key, b64(V.rsa.signature))).toBe(true);
    expect(crypto.verify('sha256', tampered, key, b64(V.rsa.signature))).toBe(false);
  });

  it('hold an Ed25519 key and a raw 64-byte EdDSA signature valid for the message only', () => {
    const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: V.ed25519.x }, format: 'jwk' });
    expect(key.asymmetricKeyType).toBe('ed25519');
    expect(b64(V.ed25519.signature)).toHaveLength(64);
    expect(crypto.verify(null, message, key, b64(V.ed25519.signature))).toBe(true);
    expect(crypto.verify(null, tampered, key, b64(V.ed25519.signature))).toBe(false);
  });
});
