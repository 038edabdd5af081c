import { describe, expect, it } from '@jest/globals';
import type { RateLimitPolicy } from '@tessera/identity';
import { testRateLimitKey } from '../identity-test.rows.js';
import type { ConformanceWorld } from './conformance.world.js';

/** RATE_LIMIT_SHARED_COUNTER (identity-model §9.6, §11.1). */
export function rateLimitCases(world: ConformanceWorld): void {
  describe('RATE_LIMIT_SHARED_COUNTER', () => {
    it('answers a probe on a reachable database without counting in any bucket', async () => {
      const before = await world.rows.count('rate_limit_buckets');
      await expect(world.limiter().probe()).resolves.toBeUndefined();
      expect(await world.rows.count('rate_limit_buckets')).toBe(before);
    });

    it('shares one bucket between two limiter instances and denies the limit + 1st call with the time left in the window', async () => {
      const policy: RateLimitPolicy = { name: 'sign_in', limit: 3, windowSeconds: 60 };
      const key = testRateLimitKey(policy.name);
      const [a, b] = [world.limiter(), world.limiter()];
      const start = world.tick().getTime();
      const at = (seconds: number) => new Date(start + seconds * 1000);

      expect(await a.consume(policy, key, at(0))).toEqual({ allowed: true, count: 1, retryAfterSeconds: 60 });
      expect(await b.consume(policy, key, at(1))).toEqual({ allowed: true, count: 2, retryAfterSeconds: 59 });
      expect(await a.consume(policy, key, at(2.5))).toEqual({ allowed: true, count: 3, retryAfterSeconds: 58 });
      expect(await b.consume(policy, key, at(10))).toEqual({ allowed: false, count: 4, retryAfterSeconds: 50 });
      expect(await a.consume(policy, key, at(59.5))).toEqual({ allowed: false, count: 5, retryAfterSeconds: 1 });
      expect(await b.consume(policy, key, at(60))).toEqual({ allowed: true, count: 1, retryAfterSeconds: 60 });
      expect(await a.consume(policy, testRateLimitKey(policy.name), at(60))).toMatchObject({ allowed: true, count: 1 });
    });

    it(`counts ${world.concurrency} concurrent calls through two instances without losing one`, async () => {
      const policy: RateLimitPolicy = {
        name: 'bootstrap',
        limit: Math.floor(world.concurrency / 2),
        windowSeconds: 900,
      };
      const key = testRateLimitKey(policy.name);
      const limiters = [world.limiter(), world.limiter()];
      const now = world.tick();
      const decisions = await Promise.all(
        Array.from({ length: world.concurrency }, (_, i) => limiters[i % 2]!.consume(policy, key, now)),
      );
      const counts = decisions.map((decision) => decision.count).sort((x, y) => x - y);
      expect(counts).toEqual(Array.from({ length: world.concurrency }, (_, i) => i + 1));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(policy.limit);
      for (const decision of decisions) expect(decision.retryAfterSeconds).toBe(900);
    });
  });
}
