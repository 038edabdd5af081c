import { Router } from '@tessera/web';
import type { IdentityKernel } from '../identity-kernel.js';
import { clientConfigRoutes } from './routes/client-config.routes.js';
import { enrollmentRoutes } from './routes/enrollment.routes.js';
import { SESSION_ROUTES } from './routes/session.routes.js';
import { anonymousRouteMatchers, mountRouteTables, type IdentityRouteTable } from './routes/route-table.js';
import { PASSKEY_ROUTES } from './routes/passkey.routes.js';
import { RECOVERY_ROUTES } from './routes/recovery.routes.js';
import { serviceIdentityRoutes } from './routes/service-identity.routes.js';
import { auditEventRoutes } from './routes/audit-events.routes.js';
import { invitationRoutes } from './routes/invitation.routes.js';
import { organizationRoutes } from './routes/organization.routes.js';

/** Every identity route family's table (identity-http §4.1), in registration order. */
const ROUTE_TABLES: readonly IdentityRouteTable[] = [SESSION_ROUTES, PASSKEY_ROUTES, RECOVERY_ROUTES];

/** Routes not yet declared in a table that admit anonymous callers. */
const LEGACY_ANONYMOUS_ROUTES = new Set([
  'POST /identity/v1/invitations/enroll',
  'POST /identity/v1/bootstrap',
  'GET /identity/v1/client-config',
  'HEAD /identity/v1/client-config',
]);

/**
 * Identity routes that admit anonymous callers (caller class ANON, identity-http §4.1), derived
 * from the route tables: a failing session cookie is treated as absent there; everywhere else
 * under `/identity/` it is answered.
 */
const ANONYMOUS_ROUTES = anonymousRouteMatchers(ROUTE_TABLES);

/** `true` where a failing session cookie is answered rather than treated as absent. */
export function answersCookieFailures(method: string, path: string): boolean {
  if (!path.startsWith('/identity/v1/')) return false;
  const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const key = `${method} ${normalised}`;
  return !LEGACY_ANONYMOUS_ROUTES.has(key) && !ANONYMOUS_ROUTES.some((matcher) => matcher.test(key));
}

/**
 * The identity API router (stages 6–11 of identity-http §2), merged into the `RouterModule` table.
 *
 * @example
 * const router = identityRouter(kernel);
 */
export function identityRouter(kernel: IdentityKernel): Router {
  const router = new Router({ bodyLimitBytes: kernel.config.limits.jsonBodyBytes });
  mountRouteTables(kernel, router, ROUTE_TABLES);
  enrollmentRoutes(kernel, router);
  clientConfigRoutes(kernel, router);
  serviceIdentityRoutes(kernel, router);
  auditEventRoutes(kernel, router);
  invitationRoutes(kernel, router);
  organizationRoutes(kernel, router);
  return router;
}
