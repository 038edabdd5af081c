import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { base64UrlDecodedLength, decodeBase64Url, encodeBase64Url, isBase64UrlOfLength } from './base64url.codec.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LARGE = { maxBytes: 1 << 20 };
const alphabetString = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 64 });

describe('base64url codec', () => {
  it('round-trips any bytes through unpadded base64url', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
        const text = encodeBase64Url(bytes);
        expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(decodeBase64Url(text, LARGE)).toEqual(Buffer.from(bytes));
      }),
    );
  });

  it('encodes a subarray view without leaking the rest of its buffer', () => {
    const backing = new Uint8Array([1, 2, 3, 0xfb, 0xff, 9]);
    expect(encodeBase64Url(backing.subarray(3, 5))).toBe('-_8');
  });

  it('accepts exactly the canonical strings of the alphabet', () => {
    fc.assert(
      fc.property(alphabetString, (text) => {
        const decoded = decodeBase64Url(text, LARGE);
        if (decoded !== undefined) expect(encodeBase64Url(decoded)).toBe(text);
        const canonical = text.length % 4 !== 1 && encodeBase64Url(Buffer.from(text, 'base64url')) === text;
        expect(decoded !== undefined).toBe(canonical);
      }),
    );
  });

  it('rejects padding on otherwise valid input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 2 }), (bytes, pads) => {
        expect(decodeBase64Url(encodeBase64Url(bytes) + '='.repeat(pads), LARGE)).toBeUndefined();
      }),
    );
  });

  it('rejects any character outside the alphabet', () => {
    const foreign = fc.constantFrom('+', '/', '=', ' ', '.', '\n', '%', 'é', '\u0000');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 3, maxLength: 64 }), foreign, fc.nat(), (bytes, char, at) => {
        const text = encodeBase64Url(bytes);
        const index = at % text.length;
        expect(decodeBase64Url(text.slice(0, index) + char + text.slice(index + 1), LARGE)).toBeUndefined();
      }),
    );
  });

  it('rejects lengths of 1 mod 4', () => {
    fc.assert(
      fc.property(
        alphabetString.filter((s) => s.length % 4 === 1),
        (text) => {
          expect(decodeBase64Url(text, LARGE)).toBeUndefined();
        },
      ),
    );
  });

  it('rejects non-zero trailing bits (non-canonical final character)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }).filter((b) => b.length % 3 !== 0),
        fc.integer({ min: 1, max: 15 }),
        (bytes, noise) => {
          const text = encodeBase64Url(bytes);
          const unused = text.length % 4 === 2 ? 0x0f : 0x03;
          if ((noise & unused) === 0) return;
          const last = ALPHABET.indexOf(text.at(-1)!);
          const tampered = text.slice(0, -1) + ALPHABET[last | (noise & unused)];
          expect(decodeBase64Url(tampered, LARGE)).toBeUndefined();
        },
      ),
    );
    expect(decodeBase64Url('AB', LARGE)).toBeUndefined();
    expect(decodeBase64Url('AA', LARGE)).toEqual(Buffer.from([0]));
  });

  it('checks the size bounds from the length before decoding', () => {
    const huge = 'A'.repeat(4_000_000) + '!';
    expect(decodeBase64Url(huge, { maxBytes: 32 })).toBeUndefined();
    expect(decodeBase64Url(encodeBase64Url(new Uint8Array(33)), { maxBytes: 32 })).toBeUndefined();
    expect(decodeBase64Url(encodeBase64Url(new Uint8Array(31)), { minBytes: 32, maxBytes: 32 })).toBeUndefined();
    expect(decodeBase64Url(encodeBase64Url(new Uint8Array(32)), { minBytes: 32, maxBytes: 32 })).toHaveLength(32);
  });

  it('rejects non-strings and computes decoded lengths', () => {
    expect(decodeBase64Url(undefined, LARGE)).toBeUndefined();
    expect(decodeBase64Url(Buffer.from('AA'), LARGE)).toBeUndefined();
    expect(base64UrlDecodedLength(43)).toBe(32);
    expect(base64UrlDecodedLength(22)).toBe(16);
    expect(base64UrlDecodedLength(5)).toBeUndefined();
    expect(isBase64UrlOfLength(encodeBase64Url(new Uint8Array(32).fill(7)), 32)).toBe(true);
    expect(isBase64UrlOfLength(encodeBase64Url(new Uint8Array(32)), 16)).toBe(false);
  });
});
