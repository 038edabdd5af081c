import type { Exchange, Router } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { ROLE_RANK } from '../../organizations/capabilities.js';
import type { MembershipRecord, OrganizationRole } from '../../store/identity-records.js';
import type { MembershipChange } from '../../store/identity-organization.port.js';
import { respondIdentityJson } from '../identity-response.js';
import { membershipView } from '../identity-views.js';
import { callerGate, readIdentityBody, requestTime, requireContext, storeRead } from '../route-kit.js';
import {
  organizationFailure,
  pathUuid,
  requireOrganizationScope,
  type OrganizationScope,
} from './organization-scope.js';
import { requireStep } from './step-up.js';

const USER = callerGate({ user: true });
const ROLE_BODY = { role: { kind: 'text', min: 1, max: 16 } } as const;
const MEMBERSHIP_PATH = '/identity/v1/organizations/:orgId/memberships/:membershipId';

/** Reason of the epoch revocation that follows every membership change (identity-model §5.1). */
export const PRIVILEGE_CHANGE_REASON = 'organization_privilege_changed';

/** The `{role}` body: one of the four roles, else 400 `request_invalid`. */
async function readRole(kernel: IdentityKernel, exchange: Exchange): Promise<OrganizationRole> {
  const { role } = await readIdentityBody(kernel, exchange, ROLE_BODY);
  if (!Object.hasOwn(ROLE_RANK, role)) throw new IdentityError('request_invalid');
  return role as OrganizationRole;
}

/**
 * Routes 26–28 (identity-http §4.1, identity-model §6.1): list the organization's current
 * memberships (`membership.read`), change a role (`membership.update`; making or unmaking an owner
 * only by an owner, with step-up; a no-op answers the current membership), remove a membership
 * (`membership.remove` + step-up; an owner only by an owner). Role and owner-rule failures are the
 * tenancy 404; the last active owner is kept (409 `conflict`). Every change revokes all of the
 * target user's sessions (epoch), the actor's own included when self-targeted.
 *
 * @example
 * membershipRoutes(kernel, router);
 */
export function membershipRoutes(kernel: IdentityKernel, router: Router): Router {
  /** The active membership the path names in the scoped organization, else 404. */
  const target = async (scope: OrganizationScope, membershipId: string) => {
    const membership = await storeRead(() => kernel.store.findMembership(membershipId));
    if (membership === null || membership.organizationId !== scope.organization.id || membership.state !== 'active')
      throw new IdentityError('not_found');
    return membership;
  };

  const mutate = async (
    exchange: Exchange,
    context: IdentityContext,
    membership: MembershipRecord,
    change: MembershipChange,
  ) => {
    const at = requestTime(exchange);
    const actor = { type: 'user', userId: context.principal.id } as const;
    const organizationId = membership.organizationId;
    const result = await kernel.store.mutateMembership({
      organizationId,
      membershipId: membership.id,
      expectedVersion: membership.version,
      change,
      revokeSessions: { reason: PRIVILEGE_CHANGE_REASON },
      at,
      audits: [
        kernel.audit.event(exchange, at, {
          actor,
          action: 'membership.changed',
          organizationId,
          target: { type: 'membership', id: membership.id },
          reasonCode: change.kind === 'role' ? `role_${change.role}` : 'removed',
        }),
        kernel.audit.event(exchange, at, {
          actor,
          action: 'session.revoked',
          organizationId,
          target: { type: 'user', id: membership.userId },
          reasonCode: PRIVILEGE_CHANGE_REASON,
        }),
      ],
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, membershipView(result.value.membership));
  };

  // 26: the current (active and suspended) memberships, sorted by id.
  router.get('/identity/v1/organizations/:orgId/memberships', USER, async (exchange) => {
    const context = requireContext(exchange);
    const { organization } = requireOrganizationScope(context, pathUuid(exchange, 'orgId'), 'membership.read');
    const memberships = await storeRead(() => kernel.store.listMembershipsForOrganization(organization.id));
    respondIdentityJson(
      exchange,
      200,
      memberships.filter((membership) => membership.state !== 'removed').map(membershipView),
    );
  });

  // 27: role change.
  router.patch(MEMBERSHIP_PATH, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const membershipId = pathUuid(exchange, 'membershipId');
    const role = await readRole(kernel, exchange);
    const scope = requireOrganizationScope(context, organizationId, 'membership.update');
    const membership = await target(scope, membershipId);
    if (membership.role === role) return respondIdentityJson(exchange, 200, membershipView(membership));
    if (membership.role === 'owner' || role === 'owner') {
      if (scope.role !== 'owner') throw new IdentityError('not_found');
      requireStep(kernel, context);
    }
    await mutate(exchange, context, membership, { kind: 'role', role });
  });

  // 28: removal (+ STEP).
  router.delete(MEMBERSHIP_PATH, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const membershipId = pathUuid(exchange, 'membershipId');
    const scope = requireOrganizationScope(context, organizationId, 'membership.remove');
    const membership = await target(scope, membershipId);
    if (membership.role === 'owner' && scope.role !== 'owner') throw new IdentityError('not_found');
    requireStep(kernel, context);
    await mutate(exchange, context, membership, { kind: 'remove' });
  });
  return router;
}
