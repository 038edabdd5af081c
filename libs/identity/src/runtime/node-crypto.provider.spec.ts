import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import { REQUIRED_CRYPTO_CAPABILITIES } from './identity.runtime.js';
import { createNodeIdentityCrypto, isOnP256Curve } from './node-crypto.provider.js';
import { SELF_TEST_VECTORS as V } from './self-test.vectors.js';

const provider = createNodeIdentityCrypto();
const b64 = (value: string): Buffer => Buffer.from(value, 'base64url');
const p256 = { x: b64(V.p256.x), y: b64(V.p256.y) };
const rsa = { n: b64(V.rsa.n), e: b64(V.rsa.e) };
const message = Buffer.from(V.message);

describe('node crypto provider', () => {
  it('declares every required capability and passes its own self-test', () => {
    expect([...provider.capabilities].sort()).toEqual([...REQUIRED_CRYPTO_CAPABILITIES].sort());
    expect(provider.selfTest()).toBe(true);
  });

  it('computes SHA-256 and HMAC-SHA-256 known answers', () => {
    expect(Buffer.from(provider.sha256(Buffer.from('abc'))).toString('hex')).toBe(V.sha256.hex);
    expect(Buffer.from(provider.hmacSha256(Buffer.from('key'), Buffer.from(V.hmacSha256.input))).toString('hex')).toBe(
      V.hmacSha256.hex,
    );
  });

  it('validates P-256 points and rejects off-curve, out-of-field and wrongly sized coordinates', () => {
    expect(provider.p256PublicKeyValidate(p256)).toBe(true);
    expect(provider.p256PublicKeyValidate({ x: p256.x, y: b64(V.p256.offCurveY) })).toBe(false);
    expect(isOnP256Curve({ x: p256.x, y: b64(V.p256.offCurveY) })).toBe(false);
    expect(provider.p256PublicKeyValidate({ x: new Uint8Array(32).fill(0xff), y: p256.y })).toBe(false);
    expect(provider.p256PublicKeyValidate({ x: p256.x.subarray(1), y: p256.y })).toBe(false);
    expect(provider.p256PublicKeyValidate({ x: new Uint8Array(32), y: new Uint8Array(32) })).toBe(false);
  });

  it('accepts freshly generated P-256 keys', () => {
    for (let i = 0; i < 20; i++) {
      const jwk = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
      expect(provider.p256PublicKeyValidate({ x: b64(jwk.x!), y: b64(jwk.y!) })).toBe(true);
    }
  });

  it('verifies ES256 in DER and P1363 form and rejects a tampered message or signature', () => {
    const der = b64(V.p256.es256DerSignature);
    expect(provider.es256Verify(p256, message, der)).toBe(true);
    expect(provider.es256Verify(p256, Buffer.from(V.tamperedMessage), der)).toBe(false);
    const flipped = Buffer.from(der);
    flipped[flipped.length - 1] ^= 1;
    expect(provider.es256Verify(p256, message, flipped)).toBe(false);
    expect(provider.es256Verify(p256, message, Buffer.from('garbage'))).toBe(false);
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = crypto.sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    expect(provider.es256Verify({ x: b64(jwk.x!), y: b64(jwk.y!) }, message, raw, 'p1363')).toBe(true);
    expect(provider.es256Verify({ x: b64(jwk.x!), y: b64(jwk.y!) }, message, raw.subarray(1), 'p1363')).toBe(false);
  });

  it('verifies with an imported key kept between calls, by exact coordinates: another key never borrows it', () => {
    const der = b64(V.p256.es256DerSignature);
    for (let i = 0; i < 3; i++) expect(provider.es256Verify(p256, message, der)).toBe(true);
    const offCurve = { x: p256.x, y: b64(V.p256.offCurveY) };
    expect(provider.es256Verify(offCurve, message, der)).toBe(false);
    const { publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    expect(provider.es256Verify({ x: b64(jwk.x!), y: b64(jwk.y!) }, message, der)).toBe(false);
    // Views into a larger buffer name the same coordinates as copies do.
    const backing = Buffer.concat([Buffer.alloc(5), p256.x, p256.y]);
    const view = { x: backing.subarray(5, 37), y: backing.subarray(37, 69) };
    expect(provider.es256Verify(view, message, der)).toBe(true);
    expect(provider.es256Verify({ x: p256.x.subarray(1), y: p256.y }, message, der)).toBe(false);
  });

  it('verifies RS256 and refuses tampered messages and keys below 2048 bits', () => {
    const signature = b64(V.rsa.signature);
    expect(provider.rsaSha256Verify(rsa, message, signature)).toBe(true);
    expect(provider.rsaSha256Verify(rsa, Buffer.from(V.tamperedMessage), signature)).toBe(false);
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = publicKey.export({ format: 'jwk' });
    const weak = crypto.sign('sha256', message, privateKey);
    expect(crypto.verify('sha256', message, publicKey, weak)).toBe(true);
    expect(provider.rsaSha256Verify({ n: b64(jwk.n!), e: b64(jwk.e!) }, message, weak)).toBe(false);
    expect(provider.rsaSha256Verify({ n: rsa.n, e: new Uint8Array([1]) }, message, signature)).toBe(false);
  });

  it('verifies Ed25519 over the raw 32-byte key and refuses tampered messages, signatures and wrong lengths', () => {
    const key = b64(V.ed25519.x);
    const signature = b64(V.ed25519.signature);
    expect(provider.ed25519Verify(key, message, signature)).toBe(true);
    expect(provider.ed25519Verify(key, Buffer.from(V.tamperedMessage), signature)).toBe(false);
    const flipped = Buffer.from(signature);
    flipped[10] = flipped[10]! ^ 0x01;
    expect(provider.ed25519Verify(key, message, flipped)).toBe(false);
    expect(provider.ed25519Verify(key, message, signature.subarray(1))).toBe(false);
    expect(provider.ed25519Verify(key, message, Buffer.concat([signature, Buffer.alloc(1)]))).toBe(false);
    expect(provider.ed25519Verify(key.subarray(1), message, signature)).toBe(false);
    const { publicKey } = crypto.generateKeyPairSync('ed25519');
    const other = b64(publicKey.export({ format: 'jwk' }).x!);
    expect(provider.ed25519Verify(other, message, signature)).toBe(false);
  });
});
