import { describe, expect, it, jest } from '@jest/globals';
import crypto from 'node:crypto';
import { constantTimeEqual, digestsEqual, isSha256Hex, sha256Hex } from './digest.js';

describe('digest helpers', () => {
  it('computes the SHA-256 known answer for "abc"', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('accepts only lower-case 64-character hex digests', () => {
    expect(isSha256Hex(sha256Hex('k'))).toBe(true);
    expect(isSha256Hex(sha256Hex('k').toUpperCase())).toBe(false);
    expect(isSha256Hex(sha256Hex('k').slice(1))).toBe(false);
    expect(isSha256Hex('not-a-digest')).toBe(false);
    expect(isSha256Hex(undefined)).toBe(false);
  });

  it('compares equal, unequal and different-length digests without throwing', () => {
    const a = crypto.createHash('sha256').update('a').digest();
    expect(digestsEqual(a, Buffer.from(a))).toBe(true);
    expect(digestsEqual(a, crypto.createHash('sha256').update('b').digest())).toBe(false);
    expect(digestsEqual(a, a.subarray(0, 31))).toBe(false);
  });

  it('compares strings of different lengths in constant time through crypto.timingSafeEqual', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      expect(constantTimeEqual('secret', 'secret')).toBe(true);
      expect(constantTimeEqual('secret', 'secret-but-longer')).toBe(false);
      expect(constantTimeEqual('', 'x')).toBe(false);
      expect(spy).toHaveBeenCalledTimes(3);
      for (const [left, right] of spy.mock.calls) {
        expect((left as Buffer).byteLength).toBe(32);
        expect((right as Buffer).byteLength).toBe(32);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
