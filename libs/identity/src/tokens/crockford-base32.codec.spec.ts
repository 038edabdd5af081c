import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { CROCKFORD_ALPHABET, decodeCrockford, encodeCrockford } from './crockford-base32.codec.js';

describe('Crockford base32', () => {
  it('uses the 32 symbols without I, L, O and U', () => {
    expect(CROCKFORD_ALPHABET).toHaveLength(32);
    expect(new Set(CROCKFORD_ALPHABET).size).toBe(32);
    expect(CROCKFORD_ALPHABET).not.toMatch(/[ILOU]/);
  });

  it('encodes 16 bytes as 26 characters, most significant bit first, and back', () => {
    expect(encodeCrockford(Buffer.alloc(16))).toBe('0'.repeat(26));
    expect(encodeCrockford(Buffer.alloc(16, 0xff))).toBe(`${'Z'.repeat(25)}W`);
    expect(encodeCrockford(Buffer.from([0x08, 0x42]))).toBe('1110');
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(16);
      const text = encodeCrockford(bytes);
      expect(text).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(decodeCrockford(text, 16)).toEqual(bytes);
      expect(decodeCrockford(text.toLowerCase(), 16)).toEqual(bytes);
    }
  });

  it('folds O to 0 and I, L to 1 when decoding', () => {
    const bytes = decodeCrockford('0'.repeat(24) + '10', 16)!;
    expect(decodeCrockford('O'.repeat(24) + 'I0', 16)).toEqual(bytes);
    expect(decodeCrockford('o'.repeat(24) + 'l0', 16)).toEqual(bytes);
    expect(decodeCrockford('0'.repeat(24) + 'i0', 16)).toEqual(bytes);
  });

  it('refuses other symbols, other lengths, non-zero trailing bits and non-ASCII look-alikes', () => {
    const valid = encodeCrockford(randomBytes(16));
    expect(decodeCrockford(valid.slice(1), 16)).toBeUndefined();
    expect(decodeCrockford(`${valid}0`, 16)).toBeUndefined();
    expect(decodeCrockford(`U${valid.slice(1)}`, 16)).toBeUndefined();
    expect(decodeCrockford(`${valid.slice(0, 25)}1`, 16)).toBeUndefined(); // trailing bits 01
    expect(decodeCrockford(`ı${valid.slice(1)}`, 16)).toBeUndefined(); // dotless i upper-cases to I
    expect(decodeCrockford(`${valid.slice(0, 12)}-${valid.slice(13)}`, 16)).toBeUndefined();
    expect(decodeCrockford('', 16)).toBeUndefined();
  });
});
