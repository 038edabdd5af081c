import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Logger } from '@nestjs/common';
import { IdentityChangeFeed, type IdentityChangeSubscriber, type IdentityChangeSubscription } from '@tessera/identity';
import { IDENTITY_SESSION_CHANGE_CHANNEL } from '../migrations/migration-20261128000000-identity-session-notify.js';

const logger = new Logger('IdentityChangeFeed');

/** `application_name` of every listener connection (for `pg_stat_activity`). */
export const CHANGE_LISTENER_APPLICATION_NAME = 'tessera_identity_change_listener';

/** Timing of a {@link PostgresIdentityChangeFeed}'s listener. */
export interface PostgresIdentityChangeFeedOptions {
  /**
   * The listener proves itself every this many milliseconds: it notifies its own heartbeat channel
   * and waits for the notice, which arrives after every notice committed before it.
   * @default 250
   */
  readonly heartbeatMs?: number;
  /**
   * A subscription is live for this long after the send time of the last heartbeat it received:
   * a listener that stops hearing (a frozen database, a silent network partition) stops the cache
   * within this bound.
   * @default 750
   */
  readonly leaseMs?: number;
  /** Longest connect, `LISTEN` or heartbeat round trip before the connection is dropped. @default 2000 */
  readonly connectTimeoutMs?: number;
  /** Reconnection backoff starts here and doubles up to `maxBackoffMs`. @default 100 */
  readonly minBackoffMs?: number;
  /** @default 5000 */
  readonly maxBackoffMs?: number;
}

/** The `pg` client surface the listener uses. */
interface ListenerClient {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  end(): Promise<void>;
  connection?: { stream?: { destroy(): void; unref?(): void } };
}

/** The knex client behind MikroORM, which opens a connection with the pool's settings outside the pool. */
interface RawConnector {
  acquireRawConnection(): Promise<ListenerClient>;
}

function rawConnector(em: EntityManager): RawConnector {
  return (em.getConnection() as unknown as { getKnex(): { client: RawConnector } }).getKnex().client;
}

/** Resolves with `promise`, or rejects after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The {@link IdentityChangeFeed} of the MikroORM store: the migration's triggers `NOTIFY`
 * `tessera_identity_session_changes` with the changed users' ids inside every writing transaction;
 * each subscription `LISTEN`s on a dedicated connection (opened with the pool's settings, outside
 * the pool) and is live only while a heartbeat sent through that connection came back within the
 * lease. A lost connection turns the subscription off at once, is reopened with bounded backoff,
 * and resets the subscriber (notices sent while nobody listened are lost).
 *
 * On embedded PGlite the database belongs to this process alone and its socket server delivers a
 * notice to the committing connection only, so nothing `LISTEN`s: the process's own invalidation of
 * every command keeps caches right, and the same connection's heartbeat (`select 1`) keeps the
 * subscription live only while the database answers.
 *
 * @example
 * const subscription = await new PostgresIdentityChangeFeed(em).subscribe(cache);
 */
export class PostgresIdentityChangeFeed extends IdentityChangeFeed {
  constructor(
    private readonly em: EntityManager,
    private readonly options: PostgresIdentityChangeFeedOptions = {},
  ) {
    super();
    for (const [name, value] of Object.entries(options)) {
      if (value !== undefined && !(Number.isInteger(value) && value > 0 && value <= 600_000))
        throw new RangeError(`changeFeed.${name} must be an integer number of milliseconds in 1..600000`);
    }
    if ((options.leaseMs ?? 750) <= (options.heartbeatMs ?? 250))
      throw new RangeError('changeFeed.leaseMs must be longer than changeFeed.heartbeatMs');
    if ((options.maxBackoffMs ?? 5000) < (options.minBackoffMs ?? 100))
      throw new RangeError('changeFeed.maxBackoffMs must be at least changeFeed.minBackoffMs');
  }

  async subscribe(subscriber: IdentityChangeSubscriber): Promise<IdentityChangeSubscription> {
    const listener = new ChangeListener(rawConnector(this.em), subscriber, this.options);
    await listener.start();
    return listener;
  }
}

/** One `LISTEN` connection (none on PGlite) with heartbeat, lease and reconnection. */
class ChangeListener implements IdentityChangeSubscription {
  private readonly heartbeatChannel = `tessera_identity_heartbeat_${randomBytes(8).toString('hex')}`;
  private readonly heartbeatMs: number;
  private readonly leaseMs: number;
  private readonly connectTimeoutMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private client: ListenerClient | undefined;
  private closed = false;
  private liveUntil = 0;
  private sequence = 0;
  private readonly sent = new Map<number, number>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private beating = false;
  /** PGlite: no `LISTEN`; a heartbeat is acknowledged by its own answer. */
  private embedded = false;
  private wasLost = false;

  constructor(
    private readonly connector: RawConnector,
    private readonly subscriber: IdentityChangeSubscriber,
    options: PostgresIdentityChangeFeedOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 250;
    this.leaseMs = options.leaseMs ?? 750;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.minBackoffMs = options.minBackoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
  }

  get live(): boolean {
    return !this.closed && this.client !== undefined && performance.now() < this.liveUntil;
  }

  /** The first connection attempt; a failure leaves the subscription off and retrying. */
  async start(): Promise<'listening' | 'retrying'> {
    try {
      return await this.connect();
    } catch {
      this.scheduleReconnect();
      return 'retrying';
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    this.liveUntil = 0;
    if (client !== undefined) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<'listening'> {
    const opening = this.connector.acquireRawConnection();
    const client = await within(opening, this.connectTimeoutMs, 'connect').catch((error: unknown) => {
      // A connection that completes after the deadline is closed, never leaked.
      void opening.then((late) => late.end().catch(() => undefined)).catch(() => undefined);
      throw error;
    });
    // The listener never keeps a process alive on its own (an app that is never closed, a script).
    client.connection?.stream?.unref?.();
    client.on('notification', (message) => this.onNotification(client, message.channel, message.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      const [row] = (await within(client.query('select version() as version'), this.connectTimeoutMs, 'version')).rows;
      this.embedded = /pglite|emscripten|wasm32/i.test(String(row?.['version'] ?? ''));
      // PGlite runs every connection on one session: naming this one would rename them all.
      if (!this.embedded) {
        const listen = `set application_name = '${CHANGE_LISTENER_APPLICATION_NAME}'; listen "${IDENTITY_SESSION_CHANGE_CHANNEL}"; listen "${this.heartbeatChannel}"`;
        await within(client.query(listen), this.connectTimeoutMs, 'listen');
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return 'listening';
    }
    this.client = client;
    if (this.failures > 0 || this.wasLost) logger.log('Session cache listener connected again: the cache is back on');
    this.failures = 0;
    this.wasLost = false;
    // Whatever was committed while nobody listened is unknown: start from nothing.
    this.subscriber.reset();
    this.heartbeatTimer = setInterval(() => this.heartbeat(client), this.heartbeatMs);
    this.heartbeatTimer.unref();
    await this.heartbeat(client);
    return 'listening';
  }

  /** Sends the next heartbeat (one at a time); a failed one, or one unanswered past the lease, drops the connection. */
  private async heartbeat(client: ListenerClient): Promise<void> {
    if (client !== this.client) return;
    const oldest = this.sent.keys().next();
    if (!oldest.done && performance.now() - this.sent.get(oldest.value)! > this.leaseMs) return this.lost(client);
    if (this.beating) return;
    const sequence = ++this.sequence;
    this.sent.set(sequence, performance.now());
    this.beating = true;
    try {
      if (this.embedded) {
        await within(client.query('select 1'), this.connectTimeoutMs, 'heartbeat');
        this.acknowledge(client, sequence);
      } else {
        // Repeats the (idempotent) LISTEN, so the connection reads as the listener in `pg_stat_activity.query`;
        // the channel is this listener's own hex name and the payload a number: nothing to quote.
        await within(
          client.query(
            `listen "${IDENTITY_SESSION_CHANGE_CHANNEL}"; select pg_notify('${this.heartbeatChannel}', '${sequence}')`,
          ),
          this.connectTimeoutMs,
          'heartbeat',
        );
      }
    } catch {
      this.lost(client);
    } finally {
      if (client === this.client) this.beating = false;
    }
  }

  private onNotification(client: ListenerClient, channel: string, payload: string): void {
    if (client !== this.client) return;
    if (channel === this.heartbeatChannel) {
      // Every notice committed before this heartbeat has been handled (one queue, commit order).
      this.acknowledge(client, Number(payload));
      return;
    }
    if (channel !== IDENTITY_SESSION_CHANGE_CHANNEL) return;
    if (payload === '*') this.subscriber.reset();
    else this.subscriber.changed(payload.split(','));
  }

  /** Heartbeat `sequence` came back: live until the lease after its send time. */
  private acknowledge(client: ListenerClient, sequence: number): void {
    const sentAt = this.sent.get(sequence);
    if (client !== this.client || sentAt === undefined) return;
    for (const sent of this.sent.keys()) {
      if (sent > sequence) break;
      this.sent.delete(sent);
    }
    this.liveUntil = Math.max(this.liveUntil, sentAt + this.leaseMs);
  }

  private lost(client: ListenerClient): void {
    if (client !== this.client) return;
    // A fixed message: the driver's error text may name hosts or users.
    logger.warn('Session cache listener lost: every request reads the store until it reconnects');
    this.wasLost = true;
    this.client = undefined;
    this.liveUntil = 0;
    this.sent.clear();
    this.beating = false;
    clearInterval(this.heartbeatTimer);
    client.connection?.stream?.destroy();
    void client.end().catch(() => undefined);
    this.subscriber.reset();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** this.failures++);
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }
}
