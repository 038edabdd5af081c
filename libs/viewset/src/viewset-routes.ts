import { HTTP_METHODS, RouteRegistrationError, type HttpMethod } from '@tessera/web';
import { isImplemented, type ViewSetOperation } from './viewset.js';

/** Which of the two paths of a resource a route serves. */
export type ViewSetTarget = 'collection' | 'item';

/** One row of the route table of web-and-viewset §7.4. */
export interface ViewSetRoute {
  readonly method: HttpMethod;
  readonly target: ViewSetTarget;
  readonly operation: ViewSetOperation;
  /** The route carries a JSON body that is validated into `exchange.input()`. */
  readonly body: 'none' | 'full' | 'partial';
}

/** The six routes of §7.4 (HEAD follows GET), in the order both paths register them. */
export const VIEWSET_ROUTES: readonly ViewSetRoute[] = [
  { method: 'GET', target: 'collection', operation: 'list', body: 'none' },
  { method: 'POST', target: 'collection', operation: 'create', body: 'full' },
  { method: 'GET', target: 'item', operation: 'retrieve', body: 'none' },
  { method: 'PUT', target: 'item', operation: 'update', body: 'full' },
  { method: 'PATCH', target: 'item', operation: 'partialUpdate', body: 'partial' },
  { method: 'DELETE', target: 'item', operation: 'delete', body: 'none' },
];

/**
 * The `Allow` value of every 405 on a ViewSet path (§7.5): the methods of the implemented
 * operations of that path, in router order, `HEAD` with `GET`; `''` when none is implemented.
 */
export function allowHeader(viewSet: object, target: ViewSetTarget): string {
  const allowed = new Set<HttpMethod>();
  for (const route of VIEWSET_ROUTES) {
    if (route.target !== target || !isImplemented(viewSet, route.operation)) continue;
    allowed.add(route.method);
    if (route.method === 'GET') allowed.add('HEAD');
  }
  return HTTP_METHODS.filter((method) => allowed.has(method)).join(', ');
}

/** The two route patterns of a resource. */
export interface ResourcePaths {
  /** `{prefix}` with one trailing `/` stripped (`/` for the root). */
  readonly collection: string;
  /** `{prefix}/:id`. */
  readonly item: string;
}

/**
 * Normalises a prefix (§7.4): it must start with `/`, loses one trailing `/`, and must not
 * declare `:id` (the item route's own parameter).
 */
export function resourcePaths(prefix: string): ResourcePaths {
  if (!prefix.startsWith('/')) throw new RouteRegistrationError(`Prefix must start with '/': ${prefix}`);
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (base.split('/').includes(':id')) throw new RouteRegistrationError(`Prefix must not declare ':id': ${prefix}`);
  return { collection: base === '' ? '/' : base, item: `${base}/:id` };
}
