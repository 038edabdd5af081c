import { Router } from '@tessera/web';
import type { Serializer } from './serializer.js';
import { runViewSetRoute, type ViewSetBinding } from './viewset-handler.js';
import { isImplemented, type ViewSet } from './viewset.js';
import { resourcePaths, VIEWSET_ROUTES } from './viewset-routes.js';

/**
 * Registers a ViewSet on a router (web-and-viewset §7.6): the six routes of §7.4 whether
 * implemented or not (unimplemented ones are kept out of `Allow`), so every 405 on the resource's
 * two paths carries the `Allow` of §7.5. Bodies are read under the `bodyLimitBytes` of the router
 * that dispatches the request (under `RouterModule`, its option), else of `router`.
 * Registration errors are those of the router (§3.3) plus the prefix rules of §7.4.
 *
 * Methods a path does not map (OPTIONS, PUT on the collection, POST on the item, ...) get the
 * router's own 405, whose `Allow` lists only the advertised (implemented) routes — empty when
 * nothing on the path is implemented.
 *
 * @returns the same router, for chaining.
 * @example
 * RouterModule.forRoot({
 *   imports: [TodoModule],
 *   routers: [{ inject: [TodoViewSet], useFactory: (todos: TodoViewSet) => resource(new Router(), '/todos', todos, todoSerializer) }],
 * })
 */
export function resource<T>(router: Router, prefix: string, viewSet: ViewSet<T>, serializer: Serializer<T>): Router {
  const paths = resourcePaths(prefix);
  const binding: ViewSetBinding = {
    viewSet,
    serializer: serializer as Serializer<unknown>,
    bodyLimitBytes: router.bodyLimitBytes,
  };
  for (const route of VIEWSET_ROUTES) {
    const path = paths[route.target];
    router.addRoute({
      method: route.method,
      path,
      middleware: [],
      handler: (exchange) =>
        runViewSetRoute(exchange, binding, route, route.target === 'item' ? exchange.pathParam('id') : undefined),
      advertise: isImplemented(viewSet, route.operation),
    });
  }
  return router;
}

declare module '@tessera/web' {
  interface Router {
    /**
     * Registers a ViewSet's six routes on this router (web-and-viewset §7.6); available once
     * `@tessera/viewset` is imported. Same as `resource(router, prefix, viewSet, serializer)`.
     *
     * @example
     * new Router().resource('/todos', todoViewSet, todoSerializer);
     */
    resource<T>(prefix: string, viewSet: ViewSet<T>, serializer: Serializer<T>): Router;
  }
}

Router.prototype.resource = function <T>(
  this: Router,
  prefix: string,
  viewSet: ViewSet<T>,
  serializer: Serializer<T>,
): Router {
  return resource(this, prefix, viewSet, serializer);
};
