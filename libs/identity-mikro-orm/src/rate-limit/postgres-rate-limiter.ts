import type { EntityManager } from '@mikro-orm/core';
import { abortConnection } from '@tessera/database';
import type { IdentityRateLimiter, RateLimitDecision, RateLimitPolicy } from '@tessera/identity';
import {
  driverPool,
  runStatement,
  type DriverConnection,
  type DriverPool,
  type Row,
} from '../store/identity-store.statements.js';

/** Options of {@link PostgresRateLimiter}. */
export interface PostgresRateLimiterOptions {
  /**
   * Deadline of one decision, connection wait included; past it the limiter cannot decide, callers
   * fail closed, and the connection running the statement is destroyed (it never returns to the pool).
   *
   * @default 2000
   */
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

const PROBE = 'select 1 from tessera_identity.rate_limit_buckets limit 1';

/**
 * The shared fixed-window limiter of identity-model §9.6: one `INSERT … ON CONFLICT DO UPDATE`
 * per request, so every instance on the database counts in the same bucket. Keys are already
 * keyed pseudonyms (`<policy>:<hmac>`); no raw address or user id reaches the table. Any error or
 * a decision over the timeout rejects: the caller answers 503. The statement runs through the
 * store's prepared-statement path on a pooled driver connection.
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
    const rows = (await withDeadline(driverPool(this.em), this.timeoutMs, (connection) =>
      runStatement(connection, CONSUME, [bucketKey, now, policy.windowSeconds], false),
    )) as { count: number; window_start: Date | string; window_seconds: number }[];
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

  /**
   * One read of the bucket table through the path `consume` takes (pooled driver connection, same
   * deadline), counting nothing: resolves when the limiter could decide now.
   */
  async probe(): Promise<void> {
    await withDeadline(driverPool(this.em), this.timeoutMs, (connection) => runStatement(connection, PROBE, [], false));
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

/**
 * Runs `work` on a pooled connection within `ms`, connection wait included. When the deadline
 * passes first the caller gets a rejection at once and the connection, if `work` holds one, is
 * destroyed, so a statement stuck on a frozen database does not keep it.
 */
function withDeadline(
  pool: DriverPool,
  ms: number,
  work: (connection: DriverConnection) => Promise<Row[]>,
): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    let held: DriverConnection | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      if (held !== undefined) abortConnection(held, `rate limiter exceeded its ${ms} ms deadline`);
      settle(() => reject(new Error(`rate limiter did not answer within ${ms} ms`)));
    }, ms);
    pool.acquireConnection().then(
      async (connection) => {
        if (settled) return void (await pool.releaseConnection(connection));
        held = connection;
        try {
          const rows = await work(connection);
          settle(() => resolve(rows));
        } catch (error) {
          settle(() => reject(error));
        } finally {
          held = undefined;
          await pool.releaseConnection(connection);
        }
      },
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
