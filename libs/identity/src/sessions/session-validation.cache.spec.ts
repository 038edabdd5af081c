import { describe, it, expect } from '@jest/globals';
import type { IdentityStore } from '../store/identity-store.port.js';
import { attachedCache, ManualChangeFeed } from './change-feed.fixture.js';
import { SESSION_CACHE_EFFECTS } from './session-cache.effects.js';
import { SessionValidationCache, type CachedSession } from './session-validation.cache.js';

/** A store double whose every declared method resolves to its own name. */
function echoStore(): IdentityStore {
  const methods = Object.fromEntries(
    [...Object.keys(SESSION_CACHE_EFFECTS), 'adapterExtra'].map((name) => [name, async () => name]),
  );
  return methods as unknown as IdentityStore;
}

const read = (sessionId: string, userId: string) =>
  ({ session: { id: sessionId, userId }, user: { id: userId } }) as unknown as CachedSession;

describe('SessionValidationCache.invalidating', () => {
  it('invalidates exactly around the commands declared to invalidate, by declaration and not by name', async () => {
    const { cache } = await attachedCache(new SessionValidationCache(60_000));
    const store = cache.invalidating(echoStore()) as unknown as Record<string, () => Promise<string>>;
    for (const [method, effect] of Object.entries(SESSION_CACHE_EFFECTS)) {
      const before = cache.generation;
      expect(await store[method]!()).toBe(method);
      expect({ method, moved: cache.generation > before }).toEqual({ method, moved: effect === 'invalidates' });
    }
    await cache.close();
  });

  it('treats a method the declaration does not know as invalidating', async () => {
    const { cache } = await attachedCache(new SessionValidationCache(60_000));
    const store = cache.invalidating(echoStore()) as unknown as Record<string, () => Promise<string>>;
    cache.set(read('s', 'u'), cache.generation);
    await store['adapterExtra']!();
    expect(cache.get('s')).toBeUndefined();
    await cache.close();
  });

  it('empties every cache of the process on a command of any of them (one embedded database, several modules)', async () => {
    const { cache: first } = await attachedCache(new SessionValidationCache(60_000));
    const { cache: second } = await attachedCache(new SessionValidationCache(60_000));
    second.set(read('s', 'u'), second.generation);
    await (first.invalidating(echoStore()) as unknown as Record<string, () => Promise<string>>)['revokeSession']!();
    expect(second.get('s')).toBeUndefined();
    await Promise.all([first.close(), second.close()]);
  });

  it('refuses to store a read taken at an older generation', async () => {
    const { cache } = await attachedCache(new SessionValidationCache(60_000));
    const generation = cache.generation;
    cache.invalidate();
    cache.set(read('s', 'u'), generation);
    expect(cache.get('s')).toBeUndefined();
    cache.set(read('s', 'u'), cache.generation);
    expect(cache.get('s')).toBeDefined();
    await cache.close();
  });
});

describe('SessionValidationCache and its change feed', () => {
  it('stays off without a feed, and when configured to 0 s', async () => {
    const unattached = new SessionValidationCache(60_000);
    unattached.set(read('s', 'u'), unattached.generation);
    expect([unattached.enabled, unattached.get('s')]).toEqual([false, undefined]);
    const { cache: zero } = await attachedCache(new SessionValidationCache(0));
    zero.set(read('s', 'u'), zero.generation);
    expect([zero.enabled, zero.get('s')]).toEqual([false, undefined]);
  });

  it("drops exactly the changed users' sessions on a notice", async () => {
    const { cache, feed } = await attachedCache(new SessionValidationCache(60_000));
    for (const [sessionId, userId] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
    ] as const)
      cache.set(read(sessionId, userId), cache.generation);
    feed.publish(['a', 'unknown']);
    expect([cache.get('a1'), cache.get('a2'), cache.get('b1')?.session.id]).toEqual([undefined, undefined, 'b1']);
    await cache.close();
  });

  it("refuses a read of a user that was notified while the read was in flight, and keeps others' reads", async () => {
    const { cache, feed } = await attachedCache(new SessionValidationCache(60_000));
    const generation = cache.generation;
    feed.publish(['a']);
    cache.set(read('a1', 'a'), generation);
    cache.set(read('b1', 'b'), generation);
    expect([cache.get('a1'), cache.get('b1')?.session.id]).toEqual([undefined, 'b1']);
    await cache.close();
  });

  it('neither serves nor stores while the feed is not live, and starts empty once it is back', async () => {
    const { cache, feed } = await attachedCache(new SessionValidationCache(60_000));
    cache.set(read('s', 'u'), cache.generation);
    feed.live = false;
    expect(cache.get('s')).toBeUndefined();
    const duringOutage = cache.generation;
    cache.set(read('t', 'u'), duringOutage);
    feed.lose();
    feed.live = true;
    expect([cache.get('s'), cache.get('t')]).toEqual([undefined, undefined]);
    // A read that started before the listener came back is refused: notices may have been missed.
    cache.set(read('t', 'u'), duringOutage);
    expect(cache.get('t')).toBeUndefined();
    cache.set(read('t', 'u'), cache.generation);
    expect(cache.get('t')?.session.id).toBe('t');
    await cache.close();
  });

  it('ages entries out after the maximum age even while live', async () => {
    let now = 0;
    const { cache } = await attachedCache(new SessionValidationCache(5000, 10_000, () => now));
    cache.set(read('s', 'u'), cache.generation);
    now = 4999;
    expect(cache.get('s')).toBeDefined();
    now = 5000;
    expect(cache.get('s')).toBeUndefined();
    await cache.close();
  });

  it('bounds the entries and the remembered invalidations', async () => {
    const { cache, feed } = await attachedCache(new SessionValidationCache(60_000, 2));
    for (const id of ['1', '2', '3']) cache.set(read(`s${id}`, `u${id}`), cache.generation);
    expect([cache.get('s1'), cache.get('s2'), cache.get('s3')?.session.id]).toEqual([undefined, undefined, 's3']);
    const generation = cache.generation;
    feed.publish(['x', 'y', 'z']);
    // Past the bound, every read in flight is refused rather than remembered per user.
    cache.set(read('s4', 'u4'), generation);
    expect(cache.get('s4')).toBeUndefined();
    await cache.close();
  });

  it('closes its subscription and stays off afterwards', async () => {
    const feed = new ManualChangeFeed();
    const cache = new SessionValidationCache(60_000);
    await cache.attach(feed);
    await cache.close();
    cache.set(read('s', 'u'), cache.generation);
    expect([cache.enabled, cache.get('s')]).toEqual([false, undefined]);
  });
});
