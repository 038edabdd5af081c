// Stable adapter for router benchmarks: `{ name, create(routes) → { lookup(method, path) } }`.
// Loads the built library (`npm run build` first).
import { Router } from '@tessera/web';

export default {
  name: '@tessera/web',
  create(routes) {
    const router = new Router();
    for (const { method, path, handler } of routes) router.add(method, path, handler);
    return { lookup: (method, path) => router.lookup(method, path) };
  },
};
