import type { PoolConfig } from '@mikro-orm/core';

/**
 * Bounds on every database wait, so a database that stops answering (frozen, network black hole)
 * turns into errors within a few seconds instead of requests hanging for as long as it is frozen.
 * `0` turns a bound off. The defaults keep the slowest path (a pooled connection that froze
 * mid-query) under 3 s: the query deadline (2.5 s) fires first, the acquire and connect bounds
 * (2 s) cover the requests that arrive afterwards.
 */
export interface DatabaseTimeouts {
  /**
   * Longest wait for a pooled connection (pool `acquireTimeoutMillis`), new connections included.
   *
   * @default 2000
   */
  acquireMs?: number;
  /**
   * Longest TCP connect plus startup handshake of a new connection (`pg` `connectionTimeoutMillis`).
   *
   * @default 2000
   */
  connectMs?: number;
  /**
   * Server-side `statement_timeout` of every connection (sent in the startup packet). Embedded
   * PGlite ignores it; the query deadline bounds its statements.
   *
   * @default 2000
   */
  statementMs?: number;
  /**
   * Server-side `lock_timeout` of every connection: a statement waiting longer for a row or table
   * lock fails with `55P03`.
   *
   * @default 1000
   */
  lockMs?: number;
  /**
   * Client-side deadline of every query: past it the connection is destroyed (its socket closed,
   * the pool never hands it out again) and the query fails with `Connection terminated`. Keep it
   * above `statementMs`, so a slow statement is cancelled by the server and keeps its connection.
   *
   * @default 2500
   */
  queryMs?: number;
  /**
   * Idle pooled connections are closed after this long (pool `idleTimeoutMillis`).
   *
   * @default 30000
   */
  idleMs?: number;
}

/** The values of {@link DatabaseTimeouts} when none are given. */
export const DEFAULT_DATABASE_TIMEOUTS: Readonly<Required<DatabaseTimeouts>> = Object.freeze({
  acquireMs: 2000,
  connectMs: 2000,
  statementMs: 2000,
  lockMs: 1000,
  queryMs: 2500,
  idleMs: 30000,
});

/** A `pg` client as the pool holds it (only what the guards touch). */
interface GuardedClient {
  query: (...args: unknown[]) => unknown;
  connection?: { stream?: { destroy(error?: Error): void } };
  __knex__disposed?: unknown;
}

/**
 * Destroys a pooled `pg` connection: its socket is closed (the running query and any queued ones
 * fail with `Connection terminated`) and the pool discards it instead of handing it out again.
 *
 * @example
 * const timer = setTimeout(() => abortConnection(connection, 'rate limiter deadline'), 2000);
 */
export function abortConnection(client: unknown, reason: string): void {
  const guarded = client as GuardedClient;
  guarded.__knex__disposed ??= reason;
  guarded.connection?.stream?.destroy();
}

/** `pg` connection options of the server-side bounds. */
export function serverTimeoutOptions(timeouts: Required<DatabaseTimeouts>): Record<string, number> {
  return {
    ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
    ...(timeouts.lockMs > 0 ? { lock_timeout: timeouts.lockMs } : {}),
    ...(timeouts.connectMs > 0 ? { connectionTimeoutMillis: timeouts.connectMs } : {}),
  };
}

/**
 * Pool settings of the bounds plus an `afterCreate` hook that arms the query deadline on each new
 * connection and, for a single-connection pool, resets the server session first (see
 * {@link resetSharedSession}).
 */
export function guardedPool(timeouts: Required<DatabaseTimeouts>, pool: PoolConfig): PoolConfig {
  const single = pool.max === 1;
  const userAfterCreate = (pool as { afterCreate?: (c: unknown, done: (error?: Error) => void) => void }).afterCreate;
  return {
    ...(timeouts.acquireMs > 0 ? { acquireTimeoutMillis: timeouts.acquireMs } : {}),
    ...(timeouts.connectMs > 0 ? { createTimeoutMillis: timeouts.connectMs + 1000 } : {}),
    idleTimeoutMillis: timeouts.idleMs,
    ...pool,
    afterCreate: (client: GuardedClient, done: (error?: Error) => void) => {
      armQueryDeadline(client, timeouts.queryMs);
      const reset = single ? resetSharedSession(client) : Promise.resolve();
      reset.then(
        () => (userAfterCreate ? userAfterCreate(client, done) : done()),
        (error: Error) => done(error),
      );
    },
  } as PoolConfig;
}

/**
 * Embedded PGlite multiplexes every socket connection onto ONE backend session, so a new connection
 * inherits what the dead ones left there: their prepared statements (one set per reaped connection,
 * a leak bounded only by the process's life) and, when a connection died mid-transaction (its query
 * deadline fired), an open transaction. With a single-connection pool nothing else is alive on the
 * session when a connection is created, so `rollback` + `deallocate all` is safe and frees both; on
 * a PostgreSQL server a new connection is a new session and both are no-ops (`rollback` only warns).
 */
function resetSharedSession(client: GuardedClient): Promise<unknown> {
  return client.query('rollback; deallocate all') as Promise<unknown>;
}

/**
 * Wraps `client.query` so every query (promise or callback style, from the ORM, knex or a raw
 * driver caller) has a deadline: when it passes, the connection is destroyed with
 * {@link abortConnection}. `pg`'s own `query_timeout` only abandons the callback and leaves the
 * query running on a connection that returns to the pool.
 */
function armQueryDeadline(client: GuardedClient, ms: number): void {
  if (!(ms > 0)) return;
  const query = client.query.bind(client);
  client.query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof values === 'function') [callback, values] = [values, undefined];
    if (
      config !== null &&
      typeof config === 'object' &&
      typeof (config as { submit?: unknown }).submit === 'function'
    ) {
      return query(config, values, callback);
    }
    const timer = setTimeout(() => abortConnection(client, `query exceeded its ${ms} ms deadline`), ms);
    timer.unref();
    if (typeof callback === 'function') {
      return query(config, values, (error: unknown, result: unknown) => {
        clearTimeout(timer);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      });
    }
    return (query(config, values) as Promise<unknown>).finally(() => clearTimeout(timer));
  };
}
