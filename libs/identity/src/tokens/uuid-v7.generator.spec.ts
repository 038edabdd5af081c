import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FrozenClock } from '../runtime/frozen.clock.js';
import type { RandomSource } from '../runtime/identity.runtime.js';
import { generateUuidV7, isCanonicalUuidV7, UUID_V7_PATTERN, uuidV7Timestamp } from './uuid-v7.generator.js';

const fixedRandom = (bytes: Uint8Array): RandomSource => ({ bytes: (n) => bytes.slice(0, n) });

describe('UUIDv7', () => {
  it('uses the exact pattern of the wire conventions', () => {
    expect(UUID_V7_PATTERN.source).toBe('^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');
  });

  it('generates canonical ids embedding the clock milliseconds for any clock and entropy', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (ms, entropy) => {
          const id = generateUuidV7(new FrozenClock(ms), fixedRandom(entropy));
          expect(isCanonicalUuidV7(id)).toBe(true);
          expect(uuidV7Timestamp(id)).toBe(ms);
        },
      ),
    );
  });

  it('places 74 random bits around the version and variant', () => {
    const ones = generateUuidV7(new FrozenClock(0), fixedRandom(new Uint8Array(10).fill(0xff)));
    const zeros = generateUuidV7(new FrozenClock(0), fixedRandom(new Uint8Array(10)));
    expect(ones).toBe('00000000-0000-7fff-bfff-ffffffffffff');
    expect(zeros).toBe('00000000-0000-7000-8000-000000000000');
  });

  it('refuses clocks outside the 48-bit millisecond range', () => {
    const random = fixedRandom(new Uint8Array(10));
    expect(() => generateUuidV7(new FrozenClock(-1), random)).toThrow(RangeError);
    expect(() => generateUuidV7(new FrozenClock(2 ** 48), random)).toThrow(RangeError);
  });

  it('rejects upper case, other versions, other variants and non-strings', () => {
    const id = '01890a5d-ac96-774b-bcce-b302099a8057';
    expect(isCanonicalUuidV7(id)).toBe(true);
    expect(isCanonicalUuidV7(id.toUpperCase())).toBe(false);
    expect(isCanonicalUuidV7(id.replace('-774b', '-474b'))).toBe(false);
    expect(isCanonicalUuidV7(id.replace('-bcce', '-ccce'))).toBe(false);
    expect(isCanonicalUuidV7(`${id}\n`)).toBe(false);
    expect(isCanonicalUuidV7(`{${id}}`)).toBe(false);
    expect(isCanonicalUuidV7(id.replaceAll('-', ''))).toBe(false);
    expect(isCanonicalUuidV7(42)).toBe(false);
    expect(uuidV7Timestamp('nope')).toBeUndefined();
  });

  it('rejects every single-character mutation that breaks the canonical form', () => {
    const valid = fc
      .tuple(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 }))
      .map(([ms, entropy]) => generateUuidV7(new FrozenClock(ms), fixedRandom(entropy)));
    const replacement = fc.constantFrom(...'0123456789abcdefABCDEFgz-_ ');
    fc.assert(
      fc.property(valid, fc.nat({ max: 35 }), replacement, (id, index, char) => {
        const mutated = id.slice(0, index) + char + id.slice(index + 1);
        const expectation =
          mutated.length === 36 &&
          /^[0-9a-f-]+$/.test(mutated) &&
          [8, 13, 18, 23].every((dash) => mutated[dash] === '-') &&
          mutated.split('-').length === 5 &&
          mutated[14] === '7' &&
          '89ab'.includes(mutated[19]!);
        expect(isCanonicalUuidV7(mutated)).toBe(expectation);
      }),
    );
  });
});
