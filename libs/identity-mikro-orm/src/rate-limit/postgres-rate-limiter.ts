import type { EntityManager } from '@mikro-orm/core';
import type { IdentityRateLimiter, RateLimitDecision, RateLimitPolicy } from '@tessera/identity';

/** Options of {@link PostgresRateLimiter}. */
export interface PostgresRateLimiterOptions {
  /** Statement timeout; past it the limiter cannot decide and callers fail closed. @default 2000 */
  timeoutMs?: number;
}

const CONSUME = `
insert into tessera_identity.rate_limit_buckets as b (bucket_key, window_start, window_seconds, count)
values (?, ?, ?, 1)
on conflict (bucket_key) do update set
  count = case when b.window_start + make_interval(secs => b.window_seconds) <= excluded.window_start then 1 else b.count + 1 end,
  window_start = case when b.window_start + make_interval(secs => b.window_seconds) <= excluded.window_start then excluded.window_start else b.window_start end,
  window_seconds = case when b.window_start + make_interval(secs => b.window_seconds) <= excluded.window_start then excluded.window_seconds else b.window_seconds end,
  version = b.version + 1
returning count, window_start, window_seconds`;

/**
 * The shared fixed-window limiter of identity-model §9.6: one `INSERT … ON CONFLICT DO UPDATE`
 * per request, so every instance on the database counts in the same bucket. Keys are already
 * keyed pseudonyms (`<policy>:<hmac>`); no raw address or user id reaches the table. Any error or
 * a statement over the timeout rejects: the caller answers 503.
 *
 * @example
 * const limiter = new PostgresRateLimiter(orm.em);
 * const decision = await limiter.consume({ name: 'bootstrap', limit: 5, windowSeconds: 900 }, key, now);
 */
export class PostgresRateLimiter implements IdentityRateLimiter {
  readonly shared = true;
  private readonly timeoutMs: number;

  constructor(
    private readonly em: EntityManager,
    options: PostgresRateLimiterOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 2000;
  }

  async consume(policy: RateLimitPolicy, bucketKey: string, now: Date): Promise<RateLimitDecision> {
    const em = this.em.fork();
    const rows = await withTimeout(
      em
        .getConnection()
        .execute<{ count: number; window_start: Date | string; window_seconds: number }[]>(CONSUME, [
          bucketKey,
          now,
          policy.windowSeconds,
        ]),
      this.timeoutMs,
    );
    const row = rows[0];
    if (row === undefined) throw new Error('rate limiter returned no row');
    const windowStart = row.window_start instanceof Date ? row.window_start : new Date(row.window_start);
    const windowEnd = windowStart.getTime() + Number(row.window_seconds) * 1000;
    const count = Number(row.count);
    return {
      allowed: count <= policy.limit,
      count,
      retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
    };
  }

  /** Deletes buckets whose window ended before `now`, at most `batchSize` (≤ 500) per call. */
  async purgeExpired(now: Date, batchSize = 500): Promise<number> {
    const limit = Math.min(Math.max(1, Math.trunc(batchSize)), 500);
    const em = this.em.fork();
    const rows = await em.getConnection().execute<{ bucket_key: string }[]>(
      `delete from tessera_identity.rate_limit_buckets where bucket_key in (
         select bucket_key from tessera_identity.rate_limit_buckets
         where window_start + make_interval(secs => window_seconds) <= ?
         order by window_start limit ?)
       returning bucket_key`,
      [now, limit],
    );
    return rows.length;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`rate limiter did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
