import type { IdentityStore } from '../store/identity-store.port.js';

/**
 * What a store method does to the session cache: `read` and `neutral` (a command that changes
 * neither a session nor a user: ceremonies, standalone audits, invitations, service identities,
 * the idle touch the resolver handles itself) pass through; `invalidates` empties the cache before
 * and after the call.
 */
export type SessionCacheEffect = 'read' | 'neutral' | 'invalidates';

/**
 * Every method of the {@link IdentityStore} port, declared once: a method added to the port does
 * not compile until it is classified here, so no command reaches the cache unclassified.
 */
export const SESSION_CACHE_EFFECTS: Readonly<Record<keyof IdentityStore, SessionCacheEffect>> = {
  findUser: 'read',
  findUserByEmail: 'read',
  findSession: 'read',
  findSessionWithUser: 'read',
  listSessionsForUser: 'read',
  findOrganization: 'read',
  findOrganizationBySlug: 'read',
  findMembership: 'read',
  findMembershipForUser: 'read',
  listOrganizationsForUser: 'read',
  findInvitation: 'read',
  findInvitationByTokenDigest: 'read',
  isEmpty: 'read',
  findCredential: 'read',
  findCredentialByWebAuthnId: 'read',
  findAssertionSubjects: 'read',
  listCredentialsForUser: 'read',
  findChallenge: 'read',
  findRecoveryCodeBySelector: 'read',
  listRecoveryCodesForUser: 'read',
  findInvitationAcceptedByUser: 'read',
  listInvitationsForOrganization: 'read',
  listAuditEventsForOrganization: 'read',
  findServiceIdentity: 'read',
  listServiceIdentitiesForOrganization: 'read',
  findServiceCredentialByPrefix: 'read',
  listServiceCredentialsForIdentity: 'read',
  findServiceCredentialGrant: 'read',
  listMembershipsForOrganization: 'read',
  findFederatedSessionStanding: 'read',
  inspectDatabaseEngine: 'read',

  touchIdentitySession: 'neutral',
  createChallenge: 'neutral',
  consumeChallenge: 'neutral',
  appendAuditEvent: 'neutral',
  purgeAuditEvents: 'neutral',
  purgeExpiredRows: 'neutral',
  createInvitation: 'neutral',
  mutateInvitation: 'neutral',
  touchServiceCredential: 'neutral',
  createServiceIdentity: 'neutral',
  mutateServiceIdentity: 'neutral',
  createServiceCredential: 'neutral',
  revokeServiceCredential: 'neutral',
  rotateServiceCredential: 'neutral',

  rotateSession: 'invalidates',
  revokeSession: 'invalidates',
  revokeUserSessions: 'invalidates',
  completeCredentialRegistration: 'invalidates',
  completeCredentialAuthentication: 'invalidates',
  quarantineCredentialAuthentication: 'invalidates',
  mutateCredential: 'invalidates',
  completeRecoveryEnrollment: 'invalidates',
  replaceRecoveryCodes: 'invalidates',
  consumeRecoveryCode: 'invalidates',
  activateAdministrativeRecoveryTicket: 'invalidates',
  redeemAdministrativeRecoveryTicket: 'invalidates',
  bootstrapIdentity: 'invalidates',
  enrollInvitation: 'invalidates',
  createMembership: 'invalidates',
  provisionEnvironment: 'invalidates',
  verifyEnvironment: 'invalidates',
  createOrganization: 'invalidates',
  mutateOrganization: 'invalidates',
  mutateMembership: 'invalidates',
};
