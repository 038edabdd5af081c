import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { parseStrictJson } from './strict-json.js';

describe('parseStrictJson', () => {
  it('agrees with JSON.parse on valid JSON without duplicate keys', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const text = JSON.stringify(value);
        expect(parseStrictJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects duplicate keys at any depth', () => {
    expect(parseStrictJson('{"a":1,"a":2}')).toBeUndefined();
    expect(parseStrictJson('{"x":{"b":1,"b":1}}')).toBeUndefined();
    expect(parseStrictJson('[{"k":1,"k":1}]')).toBeUndefined();
  });

  it('rejects malformed input, trailing data, lone surrogates and raw control characters', () => {
    for (const bad of [
      '',
      '{',
      '{"a":}',
      '[1,]',
      '{"a":1,}',
      '01',
      '1.',
      'tru',
      '"\\x"',
      '"\\ud800"',
      '"a\tb"',
      '{} {}',
      'NaN',
      "{'a':1}",
    ]) {
      expect(parseStrictJson(bad)).toBeUndefined();
    }
  });

  it('keeps __proto__ as an own key, never as a prototype', () => {
    const value = parseStrictJson('{"__proto__":{"admin":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect((value as { admin?: unknown }).admin).toBeUndefined();
  });

  it('bounds nesting depth', () => {
    expect(parseStrictJson('['.repeat(33) + ']'.repeat(33))).toBeUndefined();
    expect(parseStrictJson('['.repeat(32) + ']'.repeat(32))).toEqual(JSON.parse('['.repeat(32) + ']'.repeat(32)));
  });
});
