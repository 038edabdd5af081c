import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import type { InvitationRecord, OrganizationRole } from '../store/identity-records.js';
import { parseInvitationToken } from '../tokens/secret-token.format.js';
import { findInvitationByToken } from './invitation-enrollment.js';

/** What the invitee may learn from the token before enrolling (route 34b, issue 17). */
export interface InvitationPreview {
  readonly organizationName: string;
  readonly role: OrganizationRole;
  /** `null` for a system-issued invitation. */
  readonly inviterDisplayName: string | null;
  readonly expiresAt: Date;
}

/**
 * The organization's name and the inviter's display name of an invitation; the organization must
 * still be active (else 401 `invalid_credentials`, as for any unusable invitation).
 *
 * @example
 * const { organizationName, inviterDisplayName } = await describeInvitation(kernel, invitation);
 */
export async function describeInvitation(
  kernel: IdentityKernel,
  invitation: InvitationRecord,
): Promise<{ organizationName: string; inviterDisplayName: string | null }> {
  const inviterId = invitation.invitedByUserId;
  const [organization, inviter] = await Promise.all([
    storeRead(() => kernel.store.findOrganization(invitation.organizationId)),
    inviterId === null ? null : storeRead(() => kernel.store.findUser(inviterId)),
  ]);
  if (organization === null || organization.state !== 'active') throw new IdentityError('invalid_credentials');
  return { organizationName: organization.name, inviterDisplayName: inviter?.displayName ?? null };
}

/**
 * Route `POST /identity/v1/invitations/preview`: who invites whom where, for a pending, unexpired
 * invitation of an active organization. Every token problem is the same 401
 * `invalid_credentials` as enrolment answers; nothing is written.
 *
 * @example
 * const { organizationName, role } = await previewInvitation(kernel, at, token);
 */
export async function previewInvitation(kernel: IdentityKernel, at: Date, token: string): Promise<InvitationPreview> {
  const secret = parseInvitationToken(token);
  if (secret === undefined) throw new IdentityError('invalid_credentials');
  const invitation = await findInvitationByToken(kernel, secret);
  if (invitation === null || invitation.state !== 'pending' || at.getTime() >= invitation.expiresAt.getTime())
    throw new IdentityError('invalid_credentials');
  const names = await describeInvitation(kernel, invitation);
  return { ...names, role: invitation.role, expiresAt: invitation.expiresAt };
}
