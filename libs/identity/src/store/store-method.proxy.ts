import type { IdentityStore } from './identity-store.port.js';

/** A store method bound to its store. */
export type StoreMethod = (...args: unknown[]) => unknown;

/**
 * `store` behind a Proxy whose every method (a string-named function property) is replaced by
 * `wrap(name, method)`, built once per method; other properties pass through. A property assigned
 * on the proxy (a test's spy) shadows the store's, as on a plain object. The one way the kernel
 * decorates every store command (the session cache's invalidation, telemetry).
 *
 * @example
 * const traced = wrapStoreMethods(store, (name, method) => tracedStoreCommand(name, method));
 */
export function wrapStoreMethods(
  store: IdentityStore,
  wrap: (name: string, method: StoreMethod) => StoreMethod,
): IdentityStore {
  const assigned = new Map<PropertyKey, unknown>();
  const wrapped = new Map<PropertyKey, { of: unknown; as: StoreMethod }>();
  return new Proxy(store, {
    get: (target, property, receiver) => {
      if (assigned.has(property)) return assigned.get(property);
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || typeof value !== 'function') return value;
      const known = wrapped.get(property);
      if (known?.of === value) return known.as;
      const method = value as StoreMethod;
      const as = wrap(property, (...args) => method.apply(target, args));
      wrapped.set(property, { of: value, as });
      return as;
    },
    set: (_target, property, value) => {
      assigned.set(property, value);
      return true;
    },
    deleteProperty: (_target, property) => assigned.delete(property) || true,
  });
}
