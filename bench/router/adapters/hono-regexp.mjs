// hono RegExpRouter (one big RegExp per method, built lazily on the first match).
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { bySpecificity } from './_specificity.mjs';

export default {
  name: 'hono RegExpRouter',
  create(routes) {
    const router = new RegExpRouter();
    for (const { method, path, handler } of bySpecificity(routes)) router.add(method, path, handler);
    return {
      lookup(method, path) {
        // [[[handler, paramIndexMap], ...], paramStash]
        const [matches, stash] = router.match(method, path);
        if (matches.length === 0) return null;
        const [handler, indexMap] = matches[0];
        // Materialise params as Hono's request does (c.req.param()).
        const params = {};
        for (const key in indexMap) params[key] = stash[indexMap[key]];
        return { handler, params };
      },
    };
  },
};
