import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { keyedDigest, lengthPrefixed, storedKeyedDigest, timingSafeEqual } from './keyed-digest.crypto.js';

describe('length-prefixed digest input', () => {
  it('writes a 4-byte big-endian length before each field, domain first', () => {
    expect(lengthPrefixed('ab', new Uint8Array([1, 2, 3]))).toEqual(
      Buffer.from([0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 3, 1, 2, 3]),
    );
    expect(lengthPrefixed('', 'é')).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 2, 0xc3, 0xa9]));
  });

  it('never lets two different field lists collide (no concatenation ambiguity)', () => {
    expect(lengthPrefixed('ab', 'c')).not.toEqual(lengthPrefixed('a', 'bc'));
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), fc.array(fc.string(), { maxLength: 4 }), (a, b) => {
        const same = a.length === b.length && a.every((v, i) => v === b[i]);
        expect(lengthPrefixed(...a).equals(lengthPrefixed(...b))).toBe(same);
      }),
    );
  });
});

describe('keyedDigest', () => {
  it('is HMAC-SHA-256 of the length-prefixed domain and fields', () => {
    const key = Buffer.from('a-pepper-of-sufficient-length!!');
    const secret = new Uint8Array(32).fill(9);
    const expected = crypto
      .createHmac('sha256', key)
      .update(
        Buffer.concat([
          Buffer.from([0, 0, 0, 18]),
          Buffer.from('tessera-session-v1'),
          Buffer.from([0, 0, 0, 32]),
          secret,
        ]),
      )
      .digest();
    expect(keyedDigest(key, 'tessera-session-v1', secret)).toEqual(expected);
    expect(keyedDigest(key, 'tessera-csrf-v1', secret)).not.toEqual(expected);
  });
});

describe('timingSafeEqual', () => {
  it('compares equal, unequal and different-length inputs without throwing', () => {
    const a = Buffer.from('0123456789abcdef');
    expect(timingSafeEqual(a, Buffer.from(a))).toBe(true);
    expect(timingSafeEqual(a, Buffer.from('0123456789abcdeF'))).toBe(false);
    expect(timingSafeEqual(a, a.subarray(0, 15))).toBe(false);
    expect(timingSafeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
  });
});

describe('storedKeyedDigest', () => {
  it('keeps HMAC-SHA-256 bytes as the store does: algorithm, unpadded base64url, pepper version', () => {
    const bytes = keyedDigest(Buffer.alloc(32, 7), 'tessera-test-v1', 'selector');
    expect(storedKeyedDigest(bytes, 'v2')).toEqual({
      algorithm: 'hmac-sha256',
      encoded: Buffer.from(bytes).toString('base64url'),
      keyVersion: 'v2',
    });
    expect(storedKeyedDigest(bytes, 'v2').encoded).toHaveLength(43);
  });
});
