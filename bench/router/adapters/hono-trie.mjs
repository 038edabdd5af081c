// hono TrieRouter.
import { TrieRouter } from 'hono/router/trie-router';
import { bySpecificity } from './_specificity.mjs';

export default {
  name: 'hono TrieRouter',
  create(routes) {
    const router = new TrieRouter();
    for (const { method, path, handler } of bySpecificity(routes)) router.add(method, path, handler);
    return {
      lookup(method, path) {
        const matches = router.match(method, path)[0]; // [[handler, params], ...]
        if (matches.length === 0) return null;
        const first = matches[0];
        return { handler: first[0], params: first[1] };
      },
    };
  },
};
