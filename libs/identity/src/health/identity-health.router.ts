import { Router } from '@tessera/web';
import type { IdentityHealth } from './identity-health.service.js';

/** Probe answers are never cached by anything on the way. */
const NO_STORE = { 'cache-control': 'no-store' } as const;

/**
 * The operator routes (registered for the management listener, else served on the public one):
 * `GET /live` → 200 `{ status: 'live' }`; `GET /ready` → 200 `{ status: 'ready', checks }` or 503
 * `{ status: 'unavailable', checks }` naming each check's outcome.
 *
 * @example
 * new RouterRegistration('IdentityHealth', [identityHealthRouter(health)], 'management')
 */
export function identityHealthRouter(health: IdentityHealth): Router {
  return new Router()
    .get('/live', (exchange) => exchange.respond({ body: health.live(), headers: NO_STORE }))
    .get('/ready', async (exchange) => {
      const readiness = await health.ready();
      exchange.respond({ status: readiness.status === 'ready' ? 200 : 503, body: readiness, headers: NO_STORE });
    });
}
