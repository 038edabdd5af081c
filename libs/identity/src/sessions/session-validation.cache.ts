import type { SessionRecord, UserRecord } from '../store/identity-records.js';
import type {
  IdentityChangeFeed,
  IdentityChangeSubscriber,
  IdentityChangeSubscription,
} from '../store/identity-change-feed.port.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { SESSION_CACHE_EFFECTS, type SessionCacheEffect } from './session-cache.effects.js';
import { wrapStoreMethods } from '../store/store-method.proxy.js';

/** A validated session and its user as read from the store. */
export interface CachedSession {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

interface Entry extends CachedSession {
  readonly storedAt: number;
}

/** Every cache of this process: a command run through any of them resets them all (one process, one embedded database). */
const processCaches = new Set<WeakRef<SessionValidationCache>>();

/**
 * A per-process cache of session reads (`lifetimes.sessionCacheSeconds`, default 5; 0 = off),
 * kept right across instances by an {@link IdentityChangeFeed}: every committed change to a
 * session or user drops that user's entries, and while the feed is not live (listener lost or not
 * yet confirmed) the cache neither serves nor stores anything, so every request reads the store.
 * Without a feed the cache stays off.
 *
 * Only the store read is cached: the token digest, state, epoch and expiry are checked on every
 * request against the request time. Every command declared `invalidates` in
 * {@link SESSION_CACHE_EFFECTS}, run by any identity module of this process, empties every cache of
 * the process before and after it runs (a change of this process is seen before the command
 * returns, without waiting for its notice). A read that overlapped an invalidation of its user (a
 * generation counter taken before the read) is not stored.
 *
 * @example
 * const cache = new SessionValidationCache(5000);
 * await cache.attach(feed);
 * const store = cache.invalidating(rawStore);
 */
export class SessionValidationCache implements IdentityChangeSubscriber {
  private readonly entries = new Map<string, Entry>();
  private readonly sessionsOfUser = new Map<string, Set<string>>();
  /** The generation at which each user was last invalidated (bounded: overflow becomes a reset). */
  private readonly invalidatedAt = new Map<string, number>();
  private generationCounter = 0;
  private resetAt = 0;
  private subscription: IdentityChangeSubscription | undefined;
  private readonly self = new WeakRef(this);

  constructor(
    private readonly maxAgeMilliseconds: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `false` when configured off or without a change feed (every request reads the store). */
  get enabled(): boolean {
    return this.maxAgeMilliseconds > 0 && this.subscription !== undefined;
  }

  /** `true` while the feed delivers every change: only then is anything served or stored. */
  get live(): boolean {
    return this.enabled && this.subscription!.live;
  }

  /** Incremented by every invalidation; a read stores its result only if its user was not invalidated since. */
  get generation(): number {
    return this.generationCounter;
  }

  /** Subscribes to `feed` (nothing when configured off or `feed` is absent). */
  async attach(feed: IdentityChangeFeed | undefined): Promise<void> {
    if (this.maxAgeMilliseconds <= 0 || feed === undefined || this.subscription !== undefined) return;
    this.subscription = await feed.subscribe(this);
    processCaches.add(this.self);
  }

  /** Unsubscribes and empties the cache; it stays off afterwards. */
  async close(): Promise<void> {
    processCaches.delete(this.self);
    const subscription = this.subscription;
    this.subscription = undefined;
    this.reset();
    await subscription?.close();
  }

  /** The cached read of `sessionId`, if the feed is live and the read is younger than the maximum age. */
  get(sessionId: string): CachedSession | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    if (this.now() - entry.storedAt >= this.maxAgeMilliseconds) {
      this.forget(sessionId);
      return undefined;
    }
    return entry;
  }

  /** Stores a read made while the generation was `generation` (dropped if its user changed since). */
  set(value: CachedSession, generation: number): void {
    if (!this.live || this.resetAt > generation) return;
    if ((this.invalidatedAt.get(value.user.id) ?? 0) > generation) return;
    if (this.entries.size >= this.maxEntries) this.clearEntries();
    const { session } = value;
    this.forget(session.id);
    this.entries.set(session.id, { ...value, storedAt: this.now() });
    let sessions = this.sessionsOfUser.get(session.userId);
    if (sessions === undefined) this.sessionsOfUser.set(session.userId, (sessions = new Set()));
    sessions.add(session.id);
  }

  /** Forgets one session's read. */
  forget(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return;
    this.entries.delete(sessionId);
    const sessions = this.sessionsOfUser.get(entry.session.userId);
    sessions?.delete(sessionId);
    if (sessions?.size === 0) this.sessionsOfUser.delete(entry.session.userId);
  }

  /** The feed's notice: these users' sessions or user rows changed. */
  changed(userIds: readonly string[]): void {
    for (const userId of userIds) {
      this.invalidatedAt.set(userId, ++this.generationCounter);
      for (const sessionId of this.sessionsOfUser.get(userId) ?? []) this.entries.delete(sessionId);
      this.sessionsOfUser.delete(userId);
    }
    // Past the bound, remembering who changed when costs more than refusing every read in flight.
    if (this.invalidatedAt.size > this.maxEntries) {
      this.invalidatedAt.clear();
      this.resetAt = this.generationCounter;
    }
  }

  /** Forgets everything and refuses every read in flight. */
  reset(): void {
    this.resetAt = ++this.generationCounter;
    this.invalidatedAt.clear();
    this.clearEntries();
  }

  /** {@link reset} of every cache of this process. */
  invalidate(): void {
    for (const ref of processCaches) {
      const cache = ref.deref();
      if (cache === undefined) processCaches.delete(ref);
      else cache.reset();
    }
    this.reset();
  }

  /**
   * `store` with every command declared `invalidates` wrapped so that it invalidates the caches of
   * this process before it starts and once it settled; reads and neutral commands pass through. A
   * method the declaration does not know (an adapter's own extra) is treated as invalidating.
   */
  invalidating(store: IdentityStore): IdentityStore {
    const effects: Readonly<Record<string, SessionCacheEffect>> = SESSION_CACHE_EFFECTS;
    if (!this.enabled) return store;
    return wrapStoreMethods(store, (property, method) => {
      const effect = Object.hasOwn(effects, property) ? effects[property] : 'invalidates';
      if (effect !== 'invalidates') return method;
      return async (...args: unknown[]) => {
        this.invalidate();
        try {
          return await method(...args);
        } finally {
          this.invalidate();
        }
      };
    });
  }

  private clearEntries(): void {
    this.entries.clear();
    this.sessionsOfUser.clear();
  }
}
