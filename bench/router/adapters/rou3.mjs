// rou3 (unjs), plain findRoute() tree lookup.
import { createRouter, addRoute, findRoute } from 'rou3';

const NO_PARAMS = Object.freeze({});

export default {
  name: 'rou3',
  create(routes) {
    const router = createRouter();
    for (const { method, path, handler } of routes) addRoute(router, method, path, handler);
    return {
      lookup(method, path) {
        const r = findRoute(router, method, path); // { data, params? } | undefined
        return r === undefined ? null : { handler: r.data, params: r.params ?? NO_PARAMS };
      },
    };
  },
};
