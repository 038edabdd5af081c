import type { IdentityCall, RequestFacts } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import { ROLE_RANK } from '../organizations/capabilities.js';
import { organizationFailure, requireOrganizationScope } from '../organizations/organization-scope.js';
import { credentialRefusal, type IdentitySessions } from '../sessions/session.service.js';
import type { InvitationRecord, MembershipRecord, OrganizationRole } from '../store/identity-records.js';
import { parseInvitationToken } from '../tokens/secret-token.format.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { enrollInvitation, findInvitationByToken, type InvitationEnrollment } from './invitation-enrollment.js';
import { IdentityInvitations } from './invitation.service.js';
import { previewInvitation, type InvitationPreview } from './invitation-preview.js';

/**
 * The invitations domain behind routes 30–34 (identity-http §4.1, identity-model §5.4): list an
 * organization's invitations (`membership.read`), create one (`membership.invite`; an `owner`
 * invitation only by an owner with a recent passkey; the token shown once), revoke a pending one
 * (same owner rule; anything but a stored `pending` invitation of this organization is 404), accept
 * one with an existing account whose primary email matches, and enroll a new account with one.
 * Creation itself is the public {@link IdentityInvitations} service.
 *
 * @example
 * const invitation = await lifecycle.revoke(call, organizationId, invitationId);
 */
export class IdentityInvitationLifecycle {
  private readonly invitations: IdentityInvitations;

  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {
    this.invitations = new IdentityInvitations(kernel);
  }

  /** Route 30. */
  list(context: IdentityContext, organizationId: string): Promise<InvitationRecord[]> {
    requireOrganizationScope(context, organizationId, 'membership.read');
    return storeRead(() => this.kernel.store.listInvitationsForOrganization(organizationId));
  }

  /** Route 31: `role` must be one of the four roles (400), then tenancy (404), then the owner rule. */
  async create(
    call: IdentityCall,
    organizationId: string,
    email: string,
    role: string,
  ): Promise<{ invitation: InvitationRecord; token?: string; delivered: boolean }> {
    if (!Object.hasOwn(ROLE_RANK, role)) throw new IdentityError('request_invalid');
    const invited = role as OrganizationRole;
    const scope = requireOrganizationScope(call.context, organizationId, 'membership.invite');
    this.requireOwnerRule(call.context, scope.role, invited);
    return this.invitations.create(
      { organizationId, email, role: invited, invitedByUserId: call.context.principal.id },
      call.exchange,
    );
  }

  /** Route 32. */
  async revoke(call: IdentityCall, organizationId: string, invitationId: string): Promise<InvitationRecord> {
    const { context, at } = call;
    const scope = requireOrganizationScope(context, organizationId, 'membership.invite');
    const invitation = await storeRead(() => this.kernel.store.findInvitation(invitationId));
    if (invitation === null || invitation.organizationId !== organizationId || invitation.state !== 'pending')
      throw new IdentityError('not_found');
    this.requireOwnerRule(context, scope.role, invitation.role);
    const result = await this.kernel.store.mutateInvitation({
      invitationId,
      organizationId,
      expectedVersion: invitation.version,
      actorUserId: context.principal.id,
      change: { kind: 'revoke' },
      at,
      audit: this.kernel.audit.event(call.exchange, at, {
        actor: { type: 'user', userId: context.principal.id },
        action: 'invitation.revoked',
        organizationId,
        target: { type: 'invitation', id: invitationId },
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value;
  }

  /**
   * Route 33: the store accepts the invitation for the caller in one transaction. Every token,
   * expiry, state or email problem — and an existing membership there — is the same 401
   * `invalid_credentials` with nothing written; a store outage is 503.
   */
  async accept(call: IdentityCall, token: string): Promise<MembershipRecord> {
    const { at } = call;
    const secret = parseInvitationToken(token);
    if (secret === undefined) throw new IdentityError('invalid_credentials');
    const invitation = await findInvitationByToken(this.kernel, secret);
    if (invitation === null || invitation.state !== 'pending' || at.getTime() >= invitation.expiresAt.getTime())
      throw new IdentityError('invalid_credentials');
    const userId = call.context.principal.id;
    const membershipId = generateUuidV7(this.kernel.runtime.clock, this.kernel.runtime.random);
    const actor = { type: 'user', userId } as const;
    const organizationId = invitation.organizationId;
    const event = (action: string, target: { type: string; id: string }) =>
      this.kernel.audit.event(call.exchange, at, { actor, action, organizationId, target });
    const result = await this.kernel.store.createMembership({
      membership: { id: membershipId, organizationId, userId, role: invitation.role },
      invitation: { invitationId: invitation.id, expectedVersion: invitation.version },
      at,
      audits: [
        event('invitation.accepted', { type: 'invitation', id: invitation.id }),
        event('membership.created', { type: 'membership', id: membershipId }),
      ],
    });
    if (!result.ok) throw credentialRefusal(result.code);
    return result.value.membership;
  }

  /** Route 34b: what the invitee may see before enrolling (anonymous, rate limited, nothing written). */
  preview(facts: RequestFacts, token: string): Promise<InvitationPreview> {
    return previewInvitation(this.kernel, facts.at, token);
  }

  /** Route 34: a new user, its membership and a restricted session, in one command. */
  enroll(facts: RequestFacts, token: string, displayName: string): Promise<InvitationEnrollment> {
    return enrollInvitation(this.kernel, this.sessions, facts, token, displayName);
  }

  /**
   * Owner-affecting invitations (creating or revoking one for the `owner` role) need an owner actor
   * (else the same 404 as any tenancy failure) with a recent passkey (else 403 `step_up_required`).
   */
  private requireOwnerRule(context: IdentityContext, actorRole: OrganizationRole, role: OrganizationRole): void {
    if (role !== 'owner') return;
    if (actorRole !== 'owner') throw new IdentityError('not_found');
    this.sessions.requireStep(context);
  }
}
