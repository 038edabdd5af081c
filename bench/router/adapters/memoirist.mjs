// memoirist (Elysia's radix router).
import { Memoirist } from 'memoirist';

export default {
  name: 'memoirist',
  create(routes) {
    const router = new Memoirist();
    for (const { method, path, handler } of routes) router.add(method, path, handler);
    return {
      lookup(method, path) {
        const r = router.find(method, path); // { store, params } | null
        return r === null ? null : { handler: r.store, params: r.params };
      },
    };
  },
};
