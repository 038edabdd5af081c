/** Receives committed changes to sessions and users, in commit order. */
export interface IdentityChangeSubscriber {
  /** The sessions or the user row of these users changed in a committed transaction. */
  changed(userIds: readonly string[]): void;
  /** Changes may have been missed (the listener was (re)connected, or a notice named too many users): forget everything. */
  reset(): void;
}

/** A live subscription to an {@link IdentityChangeFeed}. */
export interface IdentityChangeSubscription {
  /**
   * `true` while every change committed by any writer is delivered to the subscriber before it is
   * acted on: the listener is connected and confirmed within its lease. A cache consults it on
   * every read and stays out of the way while it is `false`.
   */
  readonly live: boolean;
  /** Stops listening; `live` is `false` afterwards. Idempotent. */
  close(): Promise<void>;
}

/**
 * Cross-instance notice of session and user changes (issue 16 part 2), so that every instance can
 * keep a validated-session cache without ever serving a revoked session late. The store's database
 * publishes the affected user ids inside the writing transaction; a feed delivers them.
 *
 * `IdentityMikroOrmModule` provides one: `LISTEN`/`NOTIFY` on a dedicated connection to a
 * PostgreSQL server, or, on embedded PGlite (one process owns the database), a subscription that
 * is always live and relies on the process's own invalidation. Without a feed the session cache
 * stays off.
 *
 * @example
 * { provide: IdentityChangeFeed, useFactory: (em: EntityManager) => new PostgresIdentityChangeFeed(em), inject: [EntityManager] }
 */
export abstract class IdentityChangeFeed {
  /** Starts delivering to `subscriber`; resolves once the first connection attempt settled (live or not). */
  abstract subscribe(subscriber: IdentityChangeSubscriber): Promise<IdentityChangeSubscription>;
}
