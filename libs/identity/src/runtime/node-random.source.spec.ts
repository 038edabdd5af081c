import { describe, expect, it } from '@jest/globals';
import { createNodeCryptoRandom } from './node-random.source.js';

describe('node random source', () => {
  it('hands out every pooled byte once: 2,000 draws of 32 bytes across several pool refills are all distinct', () => {
    const random = createNodeCryptoRandom();
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const draw = random.bytes(32);
      expect(draw.byteLength).toBe(32);
      seen.add(Buffer.from(draw).toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('gives each caller its own buffer: zeroing one draw leaves the next ones random', () => {
    const random = createNodeCryptoRandom();
    const first = random.bytes(16);
    const kept = Buffer.from(first).toString('hex');
    first.fill(0);
    const second = random.bytes(16);
    expect(Buffer.from(second).toString('hex')).not.toBe(kept);
    expect(Buffer.from(second).equals(Buffer.alloc(16))).toBe(false);
  });

  it('serves draws of every size from 0 to past the pooled size, odd sizes crossing the pool end included', () => {
    const random = createNodeCryptoRandom();
    for (const size of [0, 1, 7, 31, 128, 129, 4096, 65_536]) expect(random.bytes(size).byteLength).toBe(size);
    const draws = Array.from({ length: 300 }, () => Buffer.from(random.bytes(29)).toString('hex'));
    expect(new Set(draws).size).toBe(300);
    expect(draws.every((hex) => hex.length === 58)).toBe(true);
  });

  it('refuses negative, fractional and oversized draws', () => {
    const random = createNodeCryptoRandom();
    for (const size of [-1, 1.5, 65_537, Number.NaN]) expect(() => random.bytes(size)).toThrow(RangeError);
  });
});
