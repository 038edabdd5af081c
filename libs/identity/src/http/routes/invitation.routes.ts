import type { Router } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { IdentityInvitations } from '../../invitations/invitation.service.js';
import { ROLE_RANK } from '../../organizations/capabilities.js';
import type { InvitationRecord, OrganizationRole } from '../../store/identity-records.js';
import { invitationView } from '../identity-views.js';
import { respondIdentityJson } from '../identity-response.js';
import { callerGate, readIdentityBody, requestTime, requireContext, storeRead } from '../route-kit.js';
import { acceptInvitation } from './invitation-accept.js';
import { requireStep } from './step-up.js';
import { organizationFailure, pathUuid, requireOrganizationScope } from './organization-scope.js';

const USER = callerGate({ user: true });
const INVITATIONS = '/identity/v1/organizations/:orgId/invitations';
const CREATE_BODY = { email: { kind: 'email' }, role: { kind: 'text', min: 1, max: 32 } } as const;
const ACCEPT_BODY = { token: { kind: 'text', min: 20, max: 512 } } as const;

/**
 * Routes 30–33 (identity-http §4.1): list an organization's invitations (`membership.read`),
 * create one (`membership.invite`; an `owner` invitation only by an owner with a recent passkey;
 * 201 with the token, shown once), revoke a pending one (same owner rule; anything but a stored
 * `pending` invitation of this organization is 404 — an expired one may be revoked, which frees
 * its email for a new invitation), and accept one with an existing account whose
 * primary email matches (any token, expiry, state or email problem → 401, nothing written).
 *
 * @example
 * invitationRoutes(kernel, router);
 */
export function invitationRoutes(kernel: IdentityKernel, router: Router): Router {
  const invitations = new IdentityInvitations(kernel);

  router.get(INVITATIONS, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    requireOrganizationScope(context, organizationId, 'membership.read');
    const listed = await storeRead(() => kernel.store.listInvitationsForOrganization(organizationId));
    const at = requestTime(exchange);
    respondIdentityJson(
      exchange,
      200,
      listed.map((invitation) => invitationView(invitation, at)),
    );
  });

  router.post(INVITATIONS, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const body = await readIdentityBody(kernel, exchange, CREATE_BODY);
    if (!Object.hasOwn(ROLE_RANK, body.role)) throw new IdentityError('request_invalid');
    const role = body.role as OrganizationRole;
    const scope = requireOrganizationScope(context, organizationId, 'membership.invite');
    requireOwnerRule(kernel, context, scope.role, role);
    const { invitation, token } = await invitations.create(
      { organizationId, email: body.email, role, invitedByUserId: context.principal.id },
      exchange,
    );
    respondIdentityJson(exchange, 201, { invitation: invitationView(invitation, requestTime(exchange)), token });
  });

  router.delete(`${INVITATIONS}/:invitationId`, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const invitationId = pathUuid(exchange, 'invitationId');
    const scope = requireOrganizationScope(context, organizationId, 'membership.invite');
    const at = requestTime(exchange);
    const invitation = await pendingInvitation(kernel, organizationId, invitationId);
    requireOwnerRule(kernel, context, scope.role, invitation.role);
    const result = await kernel.store.mutateInvitation({
      invitationId,
      organizationId,
      expectedVersion: invitation.version,
      change: { kind: 'revoke' },
      at,
      audit: kernel.audit.event(exchange, at, {
        actor: { type: 'user', userId: context.principal.id },
        action: 'invitation.revoked',
        organizationId,
        target: { type: 'invitation', id: invitationId },
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, invitationView(result.value, at));
  });

  router.post('/identity/v1/invitations/accept', USER, async (exchange) => {
    const context = requireContext(exchange);
    const body = await readIdentityBody(kernel, exchange, ACCEPT_BODY);
    await acceptInvitation(kernel, exchange, context, body.token);
  });
  return router;
}

/**
 * Owner-affecting invitations (creating or revoking one for the `owner` role) need an owner actor
 * (else the same 404 as any tenancy failure) with a recent passkey (else 403 `step_up_required`).
 */
function requireOwnerRule(
  kernel: IdentityKernel,
  context: IdentityContext,
  actorRole: OrganizationRole,
  invitationRole: OrganizationRole,
): void {
  if (invitationRole !== 'owner') return;
  if (actorRole !== 'owner') throw new IdentityError('not_found');
  requireStep(kernel, context);
}

/** The invitation, if it belongs to the organization and is stored `pending`; else 404. */
async function pendingInvitation(
  kernel: IdentityKernel,
  organizationId: string,
  invitationId: string,
): Promise<InvitationRecord> {
  const invitation = await storeRead(() => kernel.store.findInvitation(invitationId));
  if (invitation === null || invitation.organizationId !== organizationId || invitation.state !== 'pending')
    throw new IdentityError('not_found');
  return invitation;
}
