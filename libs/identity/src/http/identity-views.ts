import type { SessionRecord } from '../store/identity-records.js';
import { formatTimestamp } from '../tokens/timestamp.format.js';
import type { MemberPerson } from '../organizations/membership.service.js';
import type {
  ChallengeRecord,
  CredentialRecord,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
} from '../store/identity-records.js';

/** `SessionView` (identity-http §4.5); `expired` is computed at the request time, never stored. */
export function sessionView(session: SessionRecord, currentId: string | undefined, now: Date) {
  const expired = session.state === 'active' && (now >= session.idleExpiresAt || now >= session.absoluteExpiresAt);
  return {
    id: session.id,
    ...(session.label === null ? {} : { label: session.label }),
    ...(session.platform === null ? {} : { platform: session.platform }),
    assurance: session.assurance,
    authenticationMethod: session.authenticationMethod,
    state: expired ? 'expired' : session.state,
    authenticatedAt: formatTimestamp(session.authenticatedAt),
    lastUsedAt: formatTimestamp(session.lastUsedAt),
    idleExpiresAt: formatTimestamp(session.idleExpiresAt),
    absoluteExpiresAt: formatTimestamp(session.absoluteExpiresAt),
    current: session.id === currentId,
  };
}

/** `Organization` (identity-http §4.5). */
export function organizationView(organization: OrganizationRecord) {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    state: organization.state,
    version: organization.version,
    createdAt: formatTimestamp(organization.createdAt),
    updatedAt: formatTimestamp(organization.updatedAt),
    ...(organization.deletedAt === null ? {} : { deletedAt: formatTimestamp(organization.deletedAt) }),
  };
}

/** `Membership` (identity-http §4.5). */
export function membershipView(membership: MembershipRecord, user?: MemberPerson) {
  return {
    id: membership.id,
    organizationId: membership.organizationId,
    userId: membership.userId,
    role: membership.role,
    state: membership.state,
    version: membership.version,
    createdAt: formatTimestamp(membership.createdAt),
    updatedAt: formatTimestamp(membership.updatedAt),
    ...(membership.removedAt === null ? {} : { removedAt: formatTimestamp(membership.removedAt) }),
    ...(user === undefined ? {} : { user }),
  };
}

/** `InvitationView` (identity-http §4.5): never the token digest. */
export function invitationView(invitation: InvitationRecord, now: Date) {
  const expired = invitation.state === 'pending' && now >= invitation.expiresAt;
  return {
    id: invitation.id,
    organizationId: invitation.organizationId,
    email: invitation.email,
    role: invitation.role,
    state: expired ? 'expired' : invitation.state,
    createdAt: formatTimestamp(invitation.createdAt),
    expiresAt: formatTimestamp(invitation.expiresAt),
    ...(invitation.acceptedAt === null ? {} : { acceptedAt: formatTimestamp(invitation.acceptedAt) }),
    ...(invitation.revokedAt === null ? {} : { revokedAt: formatTimestamp(invitation.revokedAt) }),
  };
}

/** `PasskeyView` (identity-http §4.5): never the public key or the WebAuthn id. */
export function passkeyView(credential: CredentialRecord) {
  return {
    id: credential.id,
    name: credential.name,
    transports: [...credential.transports],
    backupEligible: credential.backupEligible,
    backedUp: credential.backedUp,
    state: credential.state,
    createdAt: formatTimestamp(credential.createdAt),
    ...(credential.lastUsedAt === null ? {} : { lastUsedAt: formatTimestamp(credential.lastUsedAt) }),
  };
}

/** `TicketView` (identity-http §4.5): the ticket token goes only to the notification sink. */
export function ticketView(ticket: ChallengeRecord, now: Date) {
  const expired = ticket.state === 'pending' && now >= ticket.expiresAt;
  return {
    id: ticket.id,
    userId: ticket.userId,
    state: expired ? 'expired' : ticket.state,
    createdAt: formatTimestamp(ticket.createdAt),
    expiresAt: formatTimestamp(ticket.expiresAt),
  };
}
