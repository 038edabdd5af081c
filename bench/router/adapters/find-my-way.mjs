// find-my-way, default mode (radix-tree walk on every lookup).
import FindMyWay from 'find-my-way';

export default {
  name: 'find-my-way',
  create(routes) {
    const router = FindMyWay();
    for (const { method, path, handler } of routes) router.on(method, path, handler);
    // find() → { handler, params, store, searchParams } | null: already the shape we need.
    return { lookup: (method, path) => router.find(method, path) };
  },
};
