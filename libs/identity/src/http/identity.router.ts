import { Router } from '@tessera/web';
import type { IdentityKernel } from '../identity-kernel.js';
import { AUDIT_EVENT_ROUTES } from './routes/audit-events.routes.js';
import { CLIENT_CONFIG_ROUTES } from './routes/client-config.routes.js';
import { DEVICE_ROUTES } from './routes/device.routes.js';
import { FEDERATION_ROUTES } from './routes/federation.routes.js';
import { FEDERATION_PROVIDER_ROUTES } from './routes/federation-provider.routes.js';
import { INVITATION_ROUTES } from './routes/invitation.routes.js';
import { OAUTH_ROUTES } from './routes/oauth.routes.js';
import { OPENAPI_ROUTES } from './routes/openapi.routes.js';
import { ORGANIZATION_ROUTES } from './routes/organization.routes.js';
import { PASSKEY_ROUTES } from './routes/passkey.routes.js';
import { RECOVERY_ROUTES } from './routes/recovery.routes.js';
import { anonymousRouteMatchers, mountRouteTables, type IdentityRouteTable } from './routes/route-table.js';
import { SCIM_CONNECTION_ROUTES } from './routes/scim-connection.routes.js';
import { SERVICE_IDENTITY_ROUTES } from './routes/service-identity.routes.js';
import { SESSION_ROUTES } from './routes/session.routes.js';

/**
 * Every identity route family's table (identity-http §4.1). A new family (device, federation,
 * SCIM) adds its table here; its anonymous routes then count in {@link answersCookieFailures}.
 */
export const ROUTE_TABLES: readonly IdentityRouteTable[] = [
  SESSION_ROUTES,
  PASSKEY_ROUTES,
  RECOVERY_ROUTES,
  ORGANIZATION_ROUTES,
  INVITATION_ROUTES,
  CLIENT_CONFIG_ROUTES,
  SERVICE_IDENTITY_ROUTES,
  AUDIT_EVENT_ROUTES,
  DEVICE_ROUTES,
  FEDERATION_ROUTES,
  FEDERATION_PROVIDER_ROUTES,
  SCIM_CONNECTION_ROUTES,
  OPENAPI_ROUTES,
  OAUTH_ROUTES,
];

/**
 * Identity routes that admit anonymous callers (caller class ANON, identity-http §4.1), derived
 * from the route tables.
 */
const ANONYMOUS_ROUTES = anonymousRouteMatchers(ROUTE_TABLES);

/**
 * `true` where a failing session cookie is answered rather than treated as absent: every path
 * under `/identity/v1/` except the routes that admit anonymous callers.
 */
export function answersCookieFailures(method: string, path: string): boolean {
  if (!path.startsWith('/identity/v1/')) return false;
  const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const key = `${method} ${normalised}`;
  return !ANONYMOUS_ROUTES.some((matcher) => matcher.test(key));
}

/**
 * The identity API router (stages 6–11 of identity-http §2), merged into the `RouterModule` table.
 *
 * @example
 * const router = identityRouter(kernel);
 */
export function identityRouter(kernel: IdentityKernel): Router {
  const router = new Router({ bodyLimitBytes: kernel.config.limits.jsonBodyBytes });
  return mountRouteTables(kernel, router, ROUTE_TABLES);
}
