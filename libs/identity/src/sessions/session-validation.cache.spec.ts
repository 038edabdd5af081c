import { describe, it, expect } from '@jest/globals';
import type { IdentityStore } from '../store/identity-store.port.js';
import { SESSION_CACHE_EFFECTS } from './session-cache.effects.js';
import { SessionValidationCache } from './session-validation.cache.js';

/** A store double whose every declared method resolves to its own name. */
function echoStore(): IdentityStore {
  const methods = Object.fromEntries(
    [...Object.keys(SESSION_CACHE_EFFECTS), 'adapterExtra'].map((name) => [name, async () => name]),
  );
  return methods as unknown as IdentityStore;
}

describe('SessionValidationCache.invalidating', () => {
  it('invalidates exactly around the commands declared to invalidate, by declaration and not by name', async () => {
    const cache = new SessionValidationCache(60_000);
    const store = cache.invalidating(echoStore()) as unknown as Record<string, () => Promise<string>>;
    for (const [method, effect] of Object.entries(SESSION_CACHE_EFFECTS)) {
      const before = cache.generation;
      expect(await store[method]!()).toBe(method);
      expect({ method, moved: cache.generation - before }).toEqual({ method, moved: effect === 'invalidates' ? 2 : 0 });
    }
  });

  it('treats a method the declaration does not know as invalidating', async () => {
    const cache = new SessionValidationCache(60_000);
    const store = cache.invalidating(echoStore()) as unknown as Record<string, () => Promise<string>>;
    const before = cache.generation;
    await store['adapterExtra']!();
    expect(cache.generation).toBe(before + 2);
  });

  it('refuses to store a read taken at an older generation', () => {
    const cache = new SessionValidationCache(60_000);
    const generation = cache.generation;
    cache.invalidate();
    const value = { session: { id: 's' }, user: { id: 'u' } } as never;
    cache.set(value, generation);
    expect(cache.get('s')).toBeUndefined();
    cache.set(value, cache.generation);
    expect(cache.get('s')).toBeDefined();
  });
});
