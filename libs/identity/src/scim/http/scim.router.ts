import { Router, type Exchange } from '@tessera/web';
import { requestTime } from '../../http/route-kit.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { authenticateScimRequest, type ScimRequestTenant } from '../scim-authentication.js';
import { scimBaseUrl } from '../scim-connection.view.js';
import { scimDiscovery } from '../scim-discovery.js';
import { IdentityScim } from '../scim.service.js';
import { ScimError } from '../scim.errors.js';
import { projectionOf, scimQuery } from './scim-list.params.js';
import { idempotencyReceipt, readPreconditions, readScimBody } from './scim-request.js';
import { respondScim } from './scim-response.js';
import { tracedRoute } from '../../telemetry/identity-telemetry.js';
import { SCIM_ROUTES, type ScimCall, type ScimRoute } from './scim.routes.js';

const NOT_FOUND = new ScimError(404, undefined, 'The resource was not found');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function call(
  kernel: IdentityKernel,
  scim: IdentityScim,
  discovery: ReturnType<typeof scimDiscovery>,
  exchange: Exchange,
) {
  const at = requestTime(exchange);
  let params: Map<string, string> | undefined;
  let tenant: ScimRequestTenant | undefined;
  const scimCall: ScimCall & { authenticate(): Promise<void> } = {
    exchange,
    kernel,
    scim,
    discovery,
    at,
    params: () => (params ??= scimQuery(exchange)),
    authenticate: async () => {
      tenant = await authenticateScimRequest(kernel, exchange, at);
    },
    tenant: () => {
      if (tenant === undefined) throw new Error('SCIM route ran without authentication');
      return tenant;
    },
    id: () => {
      const id = exchange.pathParam('id');
      if (id === undefined || id === '') throw NOT_FOUND;
      return id;
    },
    ifNoneMatch: () => readPreconditions(exchange).ifNoneMatch,
    write: async (withBody) => {
      const preconditions = readPreconditions(exchange);
      const granted = scimCall.tenant();
      const body = withBody ? await readScimBody(kernel, exchange) : {};
      return {
        body,
        write: {
          exchange,
          at,
          tenant: granted.tenant,
          groupRoles: granted.groupRoles,
          receipt: idempotencyReceipt(exchange, granted.tenant.provider, preconditions, withBody ? body : null),
          ifMatch: preconditions.ifMatch,
          projection: projectionOf(scimCall.params()),
        },
      };
    },
  };
  return scimCall;
}

/**
 * The SCIM 2.0 router under `/scim/v2` (identity-http §7), merged into the `RouterModule` table:
 * every row authenticates from headers before any body is read, answers `application/scim+json`,
 * and any other path under the base is a SCIM 404. `scim.enabled: false` answers 404 everywhere.
 *
 * @example
 * new RouterRegistration('IdentityModule', [identityRouter(kernel), scimRouter(kernel)]);
 */
export function scimRouter(kernel: IdentityKernel): Router {
  const router = new Router({ bodyLimitBytes: kernel.config.limits.scimBodyBytes });
  const scim = new IdentityScim(kernel);
  const discovery = scimDiscovery(scimBaseUrl(kernel.config.publicBaseUrl), kernel.scim.maxPageSize);
  const mount = (row: ScimRoute) =>
    router.add(row.method, row.path, tracedRoute(row.method, row.path), async (exchange: Exchange) => {
      if (!kernel.scim.enabled) throw NOT_FOUND;
      const scimCall = call(kernel, scim, discovery, exchange);
      if (row.authenticated) await scimCall.authenticate();
      const answer = await row.handle(scimCall);
      respondScim(exchange, answer.status, answer.body, {
        ...(answer.etag === undefined ? {} : { etag: answer.etag }),
        ...(answer.location === undefined ? {} : { location: answer.location }),
      });
    });
  SCIM_ROUTES.forEach(mount);
  for (const method of METHODS) {
    for (const path of ['/scim/v2', '/scim/v2/*']) {
      router.add(method, path, async () => {
        throw NOT_FOUND;
      });
    }
  }
  return router;
}
