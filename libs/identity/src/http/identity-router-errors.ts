import type { RouterErrorRenderer } from '@tessera/web';
import { respondIdentityError } from './identity-response.js';

/**
 * The router's own answers on `/identity/` in the identity envelope (identity-http §8.2) instead of
 * Nest's format: a malformed percent-escape is 400 `request_invalid`, another method on a known
 * path 405 `method_not_allowed` (the router has set `Allow`). Both carry `X-Request-ID` and
 * `Cache-Control: no-store` like every identity answer.
 *
 * @example
 * { provide: TESSERA_ROUTER_ERROR_RENDERER, useValue: identityRouterErrorRenderer }
 */
export const identityRouterErrorRenderer: RouterErrorRenderer = {
  pathPrefix: '/identity/',
  render(error, exchange) {
    respondIdentityError(exchange, error.kind === 'method_not_allowed' ? 'method_not_allowed' : 'request_invalid');
  },
};

/**
 * The same answers on `/oauth/*`: a malformed percent-escape is the RFC 6749 `invalid_request`
 * (`respondIdentityError` renders OAuth bodies there), another method 405 with `Allow`.
 *
 * @example
 * { provide: TESSERA_ROUTER_ERROR_RENDERER, useValue: [identityRouterErrorRenderer, oauthRouterErrorRenderer] }
 */
export const oauthRouterErrorRenderer: RouterErrorRenderer = {
  pathPrefix: '/oauth/',
  render: identityRouterErrorRenderer.render,
};

/**
 * `true` when an identity path is not in canonical form: every identity path segment is a fixed
 * word, a canonical UUID or a base64url id, so any percent-escape (`%2D` for `-`, or a malformed
 * one) is non-canonical (identity-http §1: a non-canonical path id → 400 `request_invalid`).
 *
 * @example
 * hasNonCanonicalIdentityPath('/identity/v1/sessions/0190%2D…'); // true
 */
export function hasNonCanonicalIdentityPath(path: string): boolean {
  return path.startsWith('/identity/') && path.includes('%');
}
