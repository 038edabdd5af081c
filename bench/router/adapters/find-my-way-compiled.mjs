// find-my-way in compiler mode: router.compile() turns each method tree into
// generated JavaScript (see "Compiler mode" in node_modules/find-my-way/README.md).
import FindMyWay from 'find-my-way';

export default {
  name: 'find-my-way (compile)',
  create(routes) {
    const router = FindMyWay();
    if (typeof router.compile !== 'function') {
      throw new Error('installed find-my-way has no compile() (compiler mode)');
    }
    for (const { method, path, handler } of routes) router.on(method, path, handler);
    router.compile();
    return { lookup: (method, path) => router.find(method, path) };
  },
};
