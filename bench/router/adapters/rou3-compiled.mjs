// rou3 compiled: compileRouter() from 'rou3/compiler' generates one matching
// function for the whole table (a snapshot; compiled after all routes are added).
import { createRouter, addRoute } from 'rou3';
import { compileRouter } from 'rou3/compiler';

const NO_PARAMS = Object.freeze({});

export default {
  name: 'rou3 (compileRouter)',
  create(routes) {
    const router = createRouter();
    for (const { method, path, handler } of routes) addRoute(router, method, path, handler);
    const match = compileRouter(router);
    return {
      lookup(method, path) {
        const r = match(method, path); // { data, params? } | undefined
        return r === undefined ? null : { handler: r.data, params: r.params ?? NO_PARAMS };
      },
    };
  },
};
