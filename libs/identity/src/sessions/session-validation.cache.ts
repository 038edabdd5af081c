import type { SessionRecord, UserRecord } from '../store/identity-records.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { SESSION_CACHE_EFFECTS, type SessionCacheEffect } from './session-cache.effects.js';

/** A validated session and its user as read from the store. */
export interface CachedSession {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

interface Entry extends CachedSession {
  readonly storedAt: number;
}

/**
 * An opt-in, per-process cache of session reads (`lifetimes.sessionCacheSeconds`, default off).
 * Only the store read is cached: the token digest, state, epoch and expiry are checked on every
 * request against the request time. Every command of this process declared `invalidates` in
 * {@link SESSION_CACHE_EFFECTS} empties it before and after it runs, and a read that overlapped such
 * a command is not stored (a generation counter taken before the read), so this process never
 * serves a session older than its own writes; changes made by another process are seen within
 * `maxAgeMilliseconds`.
 *
 * @example
 * const cache = new SessionValidationCache(1000);
 * const store = cache.invalidating(rawStore);
 */
export class SessionValidationCache {
  private readonly entries = new Map<string, Entry>();
  private generationCounter = 0;

  constructor(
    private readonly maxAgeMilliseconds: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `false` when configured off (every request reads the store). */
  get enabled(): boolean {
    return this.maxAgeMilliseconds > 0;
  }

  /** Incremented by every invalidation; a read stores its result only if it did not change. */
  get generation(): number {
    return this.generationCounter;
  }

  /** The cached read of `sessionId`, if younger than the maximum age. */
  get(sessionId: string): CachedSession | undefined {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    if (this.now() - entry.storedAt >= this.maxAgeMilliseconds) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return entry;
  }

  /** Stores a read made while the generation was `generation` (dropped if anything changed since). */
  set(value: CachedSession, generation: number): void {
    if (!this.enabled || generation !== this.generationCounter) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(value.session.id, { ...value, storedAt: this.now() });
  }

  /** Forgets one session's read. */
  forget(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  /** Forgets everything and starts a new generation. */
  invalidate(): void {
    this.generationCounter++;
    this.entries.clear();
  }

  /**
   * `store` with every command declared `invalidates` wrapped so that it invalidates the cache
   * before it starts and once it settled; reads and neutral commands pass through. A method the
   * declaration does not know (an adapter's own extra) is treated as invalidating.
   */
  invalidating(store: IdentityStore): IdentityStore {
    const effects: Readonly<Record<string, SessionCacheEffect>> = SESSION_CACHE_EFFECTS;
    if (!this.enabled) return store;
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || typeof value !== 'function') return value;
        const effect = Object.hasOwn(effects, property) ? effects[property] : 'invalidates';
        if (effect !== 'invalidates') return (value as (...args: unknown[]) => unknown).bind(target);
        return async (...args: unknown[]) => {
          this.invalidate();
          try {
            return await (value as (...args: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            this.invalidate();
          }
        };
      },
    });
  }
}
