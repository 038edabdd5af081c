// @medley/router: one tree for all methods, route store per path (store[method] = handler).
import MedleyRouter from '@medley/router';

export default {
  name: '@medley/router',
  create(routes) {
    const router = new MedleyRouter();
    for (const { method, path, handler } of routes) router.register(path)[method] = handler;
    return {
      lookup(method, path) {
        const r = router.find(path); // { store, params } | null
        if (r === null) return null;
        const handler = r.store[method];
        return handler === undefined ? null : { handler, params: r.params };
      },
    };
  },
};
