import type { IncomingMessage } from 'node:http';
import { malformedPathError, methodNotAllowedError } from './errors.js';
import type { Exchange } from './exchange.js';
import type { HttpMethod } from './router/route-path.js';

/** An answer the router itself gives, before any handler runs (web-and-viewset §5.2). */
export type RouterLevelError =
  | { readonly kind: 'malformed_path'; readonly status: 400 }
  | { readonly kind: 'method_not_allowed'; readonly status: 405; readonly allow: readonly HttpMethod[] };

/**
 * Renders router-level errors for the paths under `pathPrefix` in another format (identity answers
 * its own envelope under `/identity/`). Registered with the `TESSERA_ROUTER_ERROR_RENDERER`
 * multi-provider; the longest matching prefix wins; other paths get the Nest format.
 *
 * @example
 * { provide: TESSERA_ROUTER_ERROR_RENDERER, useValue: { pathPrefix: '/api/', render: (error, ex) => ex.respond({ status: error.status }) } }
 */
export interface RouterErrorRenderer {
  readonly pathPrefix: string;
  render(error: RouterLevelError, exchange: Exchange): void;
}

/** A 400 for a matched path whose parameter holds a malformed escape or invalid UTF-8. */
export const MALFORMED_PATH: RouterLevelError = Object.freeze({ kind: 'malformed_path', status: 400 });

const RENDERERS = new WeakMap<Exchange, readonly RouterErrorRenderer[]>();
const DEFERRED: unique symbol = Symbol.for('tessera.deferredRouterError');
type DeferringRequest = IncomingMessage & { [DEFERRED]?: RouterLevelError };

/** @internal The renderers `RouterHost` attaches to each exchange, longest prefix first. */
export function attachRouterErrorRenderers(exchange: Exchange, renderers: readonly RouterErrorRenderer[]): void {
  if (renderers.length > 0) RENDERERS.set(exchange, renderers);
}

/**
 * Answers a router-level error: through the renderer registered for the path's prefix, else in
 * Nest's format (`Allow` on 405s either way).
 *
 * @example
 * respondRouterError(exchange, { kind: 'method_not_allowed', status: 405, allow: ['GET', 'HEAD'] });
 */
export function respondRouterError(exchange: Exchange, error: RouterLevelError): void {
  if (error.kind === 'method_not_allowed') exchange.setHeader('allow', error.allow.join(', '));
  const renderer = RENDERERS.get(exchange)?.find((entry) => exchange.path.startsWith(entry.pathPrefix));
  if (renderer !== undefined) return renderer.render(error, exchange);
  const body = (error.kind === 'malformed_path' ? malformedPathError() : methodNotAllowedError()).getResponse();
  exchange.respond({ status: error.status, body });
}

/**
 * For gates that run ahead of the `RouterModule` pipeline (the ViewSet body gate): records the
 * error on the request so the pipeline answers it after its pre-route stages (request id, ...)
 * instead of the gate answering bare.
 *
 * @example
 * deferRouterError(req, MALFORMED_PATH); next();
 */
export function deferRouterError(req: IncomingMessage, error: RouterLevelError): void {
  (req as DeferringRequest)[DEFERRED] = error;
}

/** @internal The error a gate deferred on `req`, if any. */
export function deferredRouterError(req: IncomingMessage): RouterLevelError | undefined {
  return (req as DeferringRequest)[DEFERRED];
}
