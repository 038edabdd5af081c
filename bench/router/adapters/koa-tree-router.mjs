// koa-tree-router (a port of Go's httprouter tree).
import KoaTreeRouter from 'koa-tree-router';

export default {
  name: 'koa-tree-router',
  create(routes) {
    const router = new KoaTreeRouter();
    for (const { method, path, handler } of routes) router.on(method, path, handler);
    return {
      lookup(method, path) {
        const r = router.find(method, path); // { handle: [handler] | null, params: [{ key, value }] }
        if (r.handle === null) return null;
        // Same conversion as the router's own middleware (ctx.params).
        const params = {};
        const list = r.params;
        for (let i = 0; i < list.length; i++) params[list[i].key] = list[i].value;
        return { handler: r.handle[0], params };
      },
    };
  },
};
