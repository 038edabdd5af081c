import type { Exchange, Router } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import { mapStoreError } from '../../errors/store.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { OrganizationRecord } from '../../store/identity-records.js';
import type { OrganizationChange } from '../../store/identity-organization.port.js';
import { generateUuidV7 } from '../../tokens/uuid-v7.generator.js';
import { respondIdentityJson } from '../identity-response.js';
import { organizationView } from '../identity-views.js';
import { callerGate, readIdentityBody, requestTime, requireContext, storeRead } from '../route-kit.js';
import { membershipRoutes } from './membership.routes.js';
import {
  organizationFailure,
  organizationSummaryView,
  pathUuid,
  requireOrganizationScope,
} from './organization-scope.js';
import { requireStep } from './step-up.js';

const USER = callerGate({ user: true });
const CREATE_BODY = { name: { kind: 'text', min: 1, max: 200 }, slug: { kind: 'slug' } } as const;
const RENAME_BODY = { name: { kind: 'text', min: 1, max: 200 } } as const;

/**
 * Routes 21–28 (identity-http §4.1): list, create, read, rename and soft-delete organizations
 * (this file), and the membership routes 26–28 ({@link membershipRoutes}). Organization scope
 * comes only from the path (segment 4, loaded by `IdentityMiddleware`); every tenancy or
 * authorization failure is the same 404 `not_found`, and only step-up answers 403.
 *
 * @example
 * organizationRoutes(kernel, router);
 */
export function organizationRoutes(kernel: IdentityKernel, router: Router): Router {
  const id = () => generateUuidV7(kernel.runtime.clock, kernel.runtime.random);

  const mutate = async (
    exchange: Exchange,
    context: IdentityContext,
    organization: OrganizationRecord,
    change: OrganizationChange,
  ) => {
    const at = requestTime(exchange);
    const result = await kernel.store.mutateOrganization({
      organizationId: organization.id,
      expectedVersion: organization.version,
      change,
      at,
      audit: kernel.audit.event(exchange, at, {
        actor: { type: 'user', userId: context.principal.id },
        action: change.kind === 'rename' ? 'organization.changed' : 'organization.deleted',
        organizationId: organization.id,
        target: { type: 'organization', id: organization.id },
        reasonCode: change.kind === 'rename' ? 'renamed' : 'deleted',
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, organizationView(result.value));
  };

  // 21: the caller's active memberships in active organizations, sorted by id; a federated
  // session sees its own tenant only.
  router.get('/identity/v1/organizations', USER, async (exchange) => {
    const context = requireContext(exchange);
    const entries = await storeRead(() => kernel.store.listOrganizationsForUser(context.principal.id));
    const tenant = context.session?.federation?.organizationId;
    respondIdentityJson(
      exchange,
      200,
      entries
        .filter(({ organization }) => tenant === undefined || organization.id === tenant)
        .sort((a, b) => (a.organization.id < b.organization.id ? -1 : 1))
        .map(({ organization, membership }) => organizationSummaryView(organization, membership.role)),
    );
  });

  // 22: USER + STEP; the creator becomes the only owner; a taken slug → 409.
  router.post('/identity/v1/organizations', USER, async (exchange) => {
    const context = requireContext(exchange);
    const body = await readIdentityBody(kernel, exchange, CREATE_BODY);
    requireStep(kernel, context);
    const at = requestTime(exchange);
    const organizationId = id();
    const membershipId = id();
    const actor = { type: 'user', userId: context.principal.id } as const;
    const result = await kernel.store.createOrganization({
      organization: { id: organizationId, name: body.name, slug: body.slug },
      owner: { id: membershipId, organizationId, userId: context.principal.id, role: 'owner' },
      at,
      audits: [
        kernel.audit.event(exchange, at, {
          actor,
          action: 'organization.created',
          organizationId,
          target: { type: 'organization', id: organizationId },
        }),
        kernel.audit.event(exchange, at, {
          actor,
          action: 'membership.created',
          organizationId,
          target: { type: 'membership', id: membershipId },
          reasonCode: 'owner',
        }),
      ],
    });
    if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'organization'));
    respondIdentityJson(exchange, 201, organizationView(result.value.organization));
  });

  // 23: any active membership.
  router.get('/identity/v1/organizations/:orgId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const { organization, role } = requireOrganizationScope(context, pathUuid(exchange, 'orgId'));
    respondIdentityJson(exchange, 200, organizationSummaryView(organization, role));
  });

  // 24: `organization.update` n/f.
  router.patch('/identity/v1/organizations/:orgId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const body = await readIdentityBody(kernel, exchange, RENAME_BODY);
    const { organization } = requireOrganizationScope(context, organizationId, 'organization.update');
    await mutate(exchange, context, organization, { kind: 'rename', name: body.name });
  });

  // 25: `organization.delete` n/f, then STEP; a soft delete.
  router.delete('/identity/v1/organizations/:orgId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const { organization } = requireOrganizationScope(context, pathUuid(exchange, 'orgId'), 'organization.delete');
    requireStep(kernel, context);
    await mutate(exchange, context, organization, { kind: 'delete' });
  });

  membershipRoutes(kernel, router);
  return router;
}
