// Hono routers return *every* matching route, in registration order (Hono
// runs them as a middleware chain). To get the single most specific route,
// the hono adapters register routes sorted so that, at the first segment where
// two patterns differ in kind, the static one comes first (the same
// static-before-param priority the other routers apply), and take the first
// match. Stable sort: equal patterns keep table order.
const kinds = (path) =>
  path
    .split('/')
    .slice(1)
    .map((s) => (s.charCodeAt(0) === 58 ? 1 : 0));

export function bySpecificity(routes) {
  const keyed = routes.map((route, index) => ({ route, index, kinds: kinds(route.path) }));
  keyed.sort((a, b) => {
    const n = Math.min(a.kinds.length, b.kinds.length);
    for (let i = 0; i < n; i++) if (a.kinds[i] !== b.kinds[i]) return a.kinds[i] - b.kinds[i];
    return a.kinds.length - b.kinds.length || a.index - b.index;
  });
  return keyed.map((k) => k.route);
}
