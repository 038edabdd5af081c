import { MikroORM, type EntityManager } from '@mikro-orm/core';
import type { IdentityStore } from '@tessera/identity';
import { IdentityAuditEnvironmentCommandHandlers } from './identity-audit-environment.commands.js';
import { IdentityCeremonyCommandHandlers } from './identity-ceremony.commands.js';
import { IdentityCredentialCommandHandlers } from './identity-credential.commands.js';
import { IdentityCredentialReadQueries } from './identity-credential.reads.js';
import { IdentityDeviceGrantCommandHandlers } from './identity-device-grant.commands.js';
import { IdentityDeviceTokenCommandHandlers } from './identity-device-token.commands.js';
import { IdentityDeviceReadQueries } from './identity-device.reads.js';
import { IdentityEnrollmentCommandHandlers } from './identity-enrollment.commands.js';
import { IdentityFederationReadQueries } from './identity-federation.reads.js';
import { IdentityFederationCommandHandlers } from './identity-federation.commands.js';
import { IdentityFederationLinkCommandHandlers } from './identity-federation-link.commands.js';
import { IdentityFederationRegistrationCommandHandlers } from './identity-federation-registration.commands.js';
import { IdentityMaintenanceCommandHandlers } from './identity-maintenance.commands.js';
import { IdentityInvitationAuditReadQueries } from './identity-invitation-audit.reads.js';
import { IdentityAuditExportReads } from './identity-audit-export.reads.js';
import { IdentityInvitationCommandHandlers } from './identity-invitation.commands.js';
import { IdentityOrganizationCommandHandlers } from './identity-organization.commands.js';
import { IdentityOrganizationReadQueries } from './identity-organization.reads.js';
import { IdentityRecoveryCommandHandlers } from './identity-recovery.commands.js';
import { IdentityScimCommandHandlers } from './identity-scim.commands.js';
import { IdentityScimConnectionCommandHandlers } from './identity-scim-connection.commands.js';
import { IdentityScimReadQueries } from './identity-scim.reads.js';
import { IdentityServiceCommandHandlers } from './identity-service.commands.js';
import { IdentityServiceReadQueries } from './identity-service.reads.js';
import { IdentitySessionCommandHandlers } from './identity-session.commands.js';
import { StoreGateway } from './identity-store.gateway.js';
import { IdentityStoreReadQueries } from './identity-store.reads.js';

/**
 * The `IdentityStore` port on MikroORM 6 + PostgreSQL (a server or embedded PGlite), schema
 * `tessera_identity` (identity-model §9). Every call forks the root EntityManager; every command
 * is one READ COMMITTED transaction with conditional updates and row locks, writes its audit
 * events in that transaction, and reports expected races and database failures as
 * `{ ok: false, code }`. Reads reject with a `StoreError`. Until `verifyEnvironment` or
 * `provisionEnvironment` succeeded on this instance, every other operation fails with `internal`.
 *
 * @example
 * const db = await openDatabase({ entities: [...identityEntities], migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE } });
 * const store = new MikroOrmIdentityStore(db.orm);
 * await store.provisionEnvironment({ environment: 'test', namespace: 'tessera_test' });
 * const empty = await store.isEmpty();
 */
export class MikroOrmIdentityStore implements IdentityStore {
  private readonly reads: IdentityStoreReadQueries;
  private readonly credentialReads: IdentityCredentialReadQueries;
  private readonly sessions: IdentitySessionCommandHandlers;
  private readonly ceremonies: IdentityCeremonyCommandHandlers;
  private readonly credentials: IdentityCredentialCommandHandlers;
  private readonly recovery: IdentityRecoveryCommandHandlers;
  private readonly enrollment: IdentityEnrollmentCommandHandlers;
  private readonly auditEnvironment: IdentityAuditEnvironmentCommandHandlers;
  private readonly serviceReads: IdentityServiceReadQueries;
  private readonly services: IdentityServiceCommandHandlers;
  private readonly invitationAuditReads: IdentityInvitationAuditReadQueries;
  private readonly auditExportReads: IdentityAuditExportReads;
  private readonly invitations: IdentityInvitationCommandHandlers;
  private readonly organizationReads: IdentityOrganizationReadQueries;
  private readonly organizations: IdentityOrganizationCommandHandlers;
  private readonly federationReads: IdentityFederationReadQueries;
  private readonly federation: IdentityFederationCommandHandlers;
  private readonly federationLinks: IdentityFederationLinkCommandHandlers;
  private readonly federationRegistrations: IdentityFederationRegistrationCommandHandlers;
  private readonly maintenance: IdentityMaintenanceCommandHandlers;
  private readonly deviceReads: IdentityDeviceReadQueries;
  private readonly deviceGrants: IdentityDeviceGrantCommandHandlers;
  private readonly deviceTokens: IdentityDeviceTokenCommandHandlers;
  private readonly scimReads: IdentityScimReadQueries;
  private readonly scim: IdentityScimCommandHandlers;
  private readonly scimConnections: IdentityScimConnectionCommandHandlers;

  /** @param source the ORM or its root EntityManager (never used directly: each call forks it). */
  constructor(source: MikroORM | EntityManager) {
    const gateway = new StoreGateway(source instanceof MikroORM ? source.em : source);
    this.reads = new IdentityStoreReadQueries(gateway);
    this.credentialReads = new IdentityCredentialReadQueries(gateway);
    this.sessions = new IdentitySessionCommandHandlers(gateway);
    this.ceremonies = new IdentityCeremonyCommandHandlers(gateway);
    this.credentials = new IdentityCredentialCommandHandlers(gateway);
    this.recovery = new IdentityRecoveryCommandHandlers(gateway);
    this.enrollment = new IdentityEnrollmentCommandHandlers(gateway);
    this.auditEnvironment = new IdentityAuditEnvironmentCommandHandlers(gateway);
    this.serviceReads = new IdentityServiceReadQueries(gateway);
    this.services = new IdentityServiceCommandHandlers(gateway);
    this.invitationAuditReads = new IdentityInvitationAuditReadQueries(gateway);
    this.auditExportReads = new IdentityAuditExportReads(gateway);
    this.invitations = new IdentityInvitationCommandHandlers(gateway);
    this.organizationReads = new IdentityOrganizationReadQueries(gateway);
    this.organizations = new IdentityOrganizationCommandHandlers(gateway);
    this.federationReads = new IdentityFederationReadQueries(gateway);
    this.federation = new IdentityFederationCommandHandlers(gateway);
    this.federationLinks = new IdentityFederationLinkCommandHandlers(gateway);
    this.federationRegistrations = new IdentityFederationRegistrationCommandHandlers(gateway);
    this.maintenance = new IdentityMaintenanceCommandHandlers(gateway);
    this.deviceReads = new IdentityDeviceReadQueries(gateway);
    this.deviceGrants = new IdentityDeviceGrantCommandHandlers(gateway);
    this.deviceTokens = new IdentityDeviceTokenCommandHandlers(gateway);
    this.scimReads = new IdentityScimReadQueries(gateway);
    this.scim = new IdentityScimCommandHandlers(gateway);
    this.scimConnections = new IdentityScimConnectionCommandHandlers(gateway);
  }

  findUser: IdentityStore['findUser'] = (id) => this.reads.findUser(id);
  listUsersByIds: IdentityStore['listUsersByIds'] = (ids) => this.reads.listUsersByIds(ids);
  findUserByEmail: IdentityStore['findUserByEmail'] = (email) => this.reads.findUserByEmail(email);
  findSession: IdentityStore['findSession'] = (id) => this.reads.findSession(id);
  findSessionWithUser: IdentityStore['findSessionWithUser'] = (id) => this.reads.findSessionWithUser(id);
  listSessionsForUser: IdentityStore['listSessionsForUser'] = (userId) => this.reads.listSessionsForUser(userId);
  findOrganization: IdentityStore['findOrganization'] = (id) => this.reads.findOrganization(id);
  findOrganizationBySlug: IdentityStore['findOrganizationBySlug'] = (slug) => this.reads.findOrganizationBySlug(slug);
  findMembership: IdentityStore['findMembership'] = (id) => this.reads.findMembership(id);
  findMembershipForUser: IdentityStore['findMembershipForUser'] = (organizationId, userId) =>
    this.reads.findMembershipForUser(organizationId, userId);
  listOrganizationsForUser: IdentityStore['listOrganizationsForUser'] = (userId) =>
    this.reads.listOrganizationsForUser(userId);
  findInvitation: IdentityStore['findInvitation'] = (id) => this.reads.findInvitation(id);
  findInvitationByTokenDigest: IdentityStore['findInvitationByTokenDigest'] = (digest) =>
    this.reads.findInvitationByTokenDigest(digest);
  isEmpty: IdentityStore['isEmpty'] = () => this.reads.isEmpty();

  findCredential: IdentityStore['findCredential'] = (id) => this.credentialReads.findCredential(id);
  findCredentialByWebAuthnId: IdentityStore['findCredentialByWebAuthnId'] = (webAuthnId) =>
    this.credentialReads.findCredentialByWebAuthnId(webAuthnId);
  findAssertionSubjects: IdentityStore['findAssertionSubjects'] = (challengeId, webAuthnId) =>
    this.credentialReads.findAssertionSubjects(challengeId, webAuthnId);
  listCredentialsForUser: IdentityStore['listCredentialsForUser'] = (userId) =>
    this.credentialReads.listCredentialsForUser(userId);
  findChallenge: IdentityStore['findChallenge'] = (id) => this.credentialReads.findChallenge(id);
  findRecoveryCodeByDigests: IdentityStore['findRecoveryCodeByDigests'] = (digests) =>
    this.credentialReads.findRecoveryCodeByDigests(digests);
  findRecoveryCodeBySelector: IdentityStore['findRecoveryCodeBySelector'] = (selector) =>
    this.credentialReads.findRecoveryCodeBySelector(selector);
  listRecoveryCodesForUser: IdentityStore['listRecoveryCodesForUser'] = (userId) =>
    this.credentialReads.listRecoveryCodesForUser(userId);
  findInvitationAcceptedByUser: IdentityStore['findInvitationAcceptedByUser'] = (userId) =>
    this.credentialReads.findInvitationAcceptedByUser(userId);

  touchIdentitySession: IdentityStore['touchIdentitySession'] = (input) => this.sessions.touchIdentitySession(input);
  rotateSession: IdentityStore['rotateSession'] = (input) => this.sessions.rotateSession(input);
  revokeSession: IdentityStore['revokeSession'] = (input) => this.sessions.revokeSession(input);
  revokeUserSessions: IdentityStore['revokeUserSessions'] = (input) => this.sessions.revokeUserSessions(input);

  createChallenge: IdentityStore['createChallenge'] = (input) => this.ceremonies.createChallenge(input);
  consumeChallenge: IdentityStore['consumeChallenge'] = (input) => this.ceremonies.consumeChallenge(input);
  completeCredentialRegistration: IdentityStore['completeCredentialRegistration'] = (input) =>
    this.credentials.completeCredentialRegistration(input);
  completeCredentialAuthentication: IdentityStore['completeCredentialAuthentication'] = (input) =>
    this.credentials.completeCredentialAuthentication(input);
  quarantineCredentialAuthentication: IdentityStore['quarantineCredentialAuthentication'] = (input) =>
    this.credentials.quarantineCredentialAuthentication(input);
  mutateCredential: IdentityStore['mutateCredential'] = (input) => this.credentials.mutateCredential(input);
  completeRecoveryEnrollment: IdentityStore['completeRecoveryEnrollment'] = (input) =>
    this.recovery.completeRecoveryEnrollment(input);
  replaceRecoveryCodes: IdentityStore['replaceRecoveryCodes'] = (input) => this.recovery.replaceRecoveryCodes(input);
  consumeRecoveryCode: IdentityStore['consumeRecoveryCode'] = (input) => this.recovery.consumeRecoveryCode(input);
  activateAdministrativeRecoveryTicket: IdentityStore['activateAdministrativeRecoveryTicket'] = (input) =>
    this.recovery.activateAdministrativeRecoveryTicket(input);
  redeemAdministrativeRecoveryTicket: IdentityStore['redeemAdministrativeRecoveryTicket'] = (input) =>
    this.recovery.redeemAdministrativeRecoveryTicket(input);

  bootstrapIdentity: IdentityStore['bootstrapIdentity'] = (input) => this.enrollment.bootstrapIdentity(input);
  createInvitation: IdentityStore['createInvitation'] = (input) => this.enrollment.createInvitation(input);
  enrollInvitation: IdentityStore['enrollInvitation'] = (input) => this.enrollment.enrollInvitation(input);
  listInvitationsForOrganization: IdentityStore['listInvitationsForOrganization'] = (organizationId) =>
    this.invitationAuditReads.listInvitationsForOrganization(organizationId);
  listAuditEventsForOrganization: IdentityStore['listAuditEventsForOrganization'] = (organizationId, page) =>
    this.invitationAuditReads.listAuditEventsForOrganization(organizationId, page);
  exportAuditEventLines: IdentityStore['exportAuditEventLines'] = (organizationId, batch) =>
    this.auditExportReads.exportAuditEventLines(organizationId, batch);
  findAuditEventPositions: IdentityStore['findAuditEventPositions'] = (organizationId, query) =>
    this.auditExportReads.findAuditEventPositions(organizationId, query);
  purgeAuditEvents: IdentityStore['purgeAuditEvents'] = (input) => this.invitationAuditReads.purgeAuditEvents(input);
  mutateInvitation: IdentityStore['mutateInvitation'] = (input) => this.invitations.mutateInvitation(input);
  createMembership: IdentityStore['createMembership'] = (input) => this.invitations.createMembership(input);

  appendAuditEvent: IdentityStore['appendAuditEvent'] = (event) => this.auditEnvironment.appendAuditEvent(event);
  provisionEnvironment: IdentityStore['provisionEnvironment'] = (marker) =>
    this.auditEnvironment.provisionEnvironment(marker);
  verifyEnvironment: IdentityStore['verifyEnvironment'] = (marker) => this.auditEnvironment.verifyEnvironment(marker);
  inspectDatabaseEngine: IdentityStore['inspectDatabaseEngine'] = () => this.auditEnvironment.inspectDatabaseEngine();
  inspectSchemaVersion: IdentityStore['inspectSchemaVersion'] = () => this.auditEnvironment.inspectSchemaVersion();

  findServiceIdentity: IdentityStore['findServiceIdentity'] = (id) => this.serviceReads.findServiceIdentity(id);
  listServiceIdentitiesForOrganization: IdentityStore['listServiceIdentitiesForOrganization'] = (organizationId) =>
    this.serviceReads.listServiceIdentitiesForOrganization(organizationId);
  findServiceCredentialByPrefix: IdentityStore['findServiceCredentialByPrefix'] = (prefix) =>
    this.serviceReads.findServiceCredentialByPrefix(prefix);
  listServiceCredentialsForIdentity: IdentityStore['listServiceCredentialsForIdentity'] = (identityId) =>
    this.serviceReads.listServiceCredentialsForIdentity(identityId);
  findServiceCredentialGrant: IdentityStore['findServiceCredentialGrant'] = (prefix) =>
    this.serviceReads.findServiceCredentialGrant(prefix);
  createServiceIdentity: IdentityStore['createServiceIdentity'] = (input) => this.services.createServiceIdentity(input);
  mutateServiceIdentity: IdentityStore['mutateServiceIdentity'] = (input) => this.services.mutateServiceIdentity(input);
  createServiceCredential: IdentityStore['createServiceCredential'] = (input) =>
    this.services.createServiceCredential(input);
  revokeServiceCredential: IdentityStore['revokeServiceCredential'] = (input) =>
    this.services.revokeServiceCredential(input);
  rotateServiceCredential: IdentityStore['rotateServiceCredential'] = (input) =>
    this.services.rotateServiceCredential(input);
  touchServiceCredential: IdentityStore['touchServiceCredential'] = (input) =>
    this.services.touchServiceCredential(input);

  listMembershipsForOrganization: IdentityStore['listMembershipsForOrganization'] = (organizationId) =>
    this.organizationReads.listMembershipsForOrganization(organizationId);
  createOrganization: IdentityStore['createOrganization'] = (input) => this.organizations.createOrganization(input);
  mutateOrganization: IdentityStore['mutateOrganization'] = (input) => this.organizations.mutateOrganization(input);
  mutateMembership: IdentityStore['mutateMembership'] = (input) => this.organizations.mutateMembership(input);

  findFederatedSessionStanding: IdentityStore['findFederatedSessionStanding'] = (federation, userId) =>
    this.federationReads.findFederatedSessionStanding(federation, userId);
  findFederationProviderControl: IdentityStore['findFederationProviderControl'] = (organizationId, providerId) =>
    this.federationReads.findFederationProviderControl(organizationId, providerId);
  findFederationProviderControlByStorageKey: IdentityStore['findFederationProviderControlByStorageKey'] = (key) =>
    this.federationReads.findFederationProviderControlByStorageKey(key);
  findExternalIdentity: IdentityStore['findExternalIdentity'] = (provider, subject) =>
    this.federationReads.findExternalIdentity(provider, subject);
  countExternalIdentities: IdentityStore['countExternalIdentities'] = (provider) =>
    this.federationReads.countExternalIdentities(provider);
  findFederationRegistration: IdentityStore['findFederationRegistration'] = (organizationId, providerId) =>
    this.federationReads.findFederationRegistration(organizationId, providerId);
  findFederationProvider: IdentityStore['findFederationProvider'] = (organizationId, providerId) =>
    this.federationReads.findFederationProvider(organizationId, providerId);
  listFederationProviders: IdentityStore['listFederationProviders'] = (organizationId) =>
    this.federationReads.listFederationProviders(organizationId);
  acquireFederationProviderLease: IdentityStore['acquireFederationProviderLease'] = (input) =>
    this.federation.acquireFederationProviderLease(input);
  validateFederationProviderLease: IdentityStore['validateFederationProviderLease'] = (lease) =>
    this.federation.validateFederationProviderLease(lease);
  compareAndSetFederationProviderState: IdentityStore['compareAndSetFederationProviderState'] = (input) =>
    this.federation.compareAndSetFederationProviderState(input);
  createFederationTransaction: IdentityStore['createFederationTransaction'] = (transaction) =>
    this.federation.createFederationTransaction(transaction);
  consumeFederationTransaction: IdentityStore['consumeFederationTransaction'] = (input) =>
    this.federation.consumeFederationTransaction(input);
  recordExternalIdentityReplay: IdentityStore['recordExternalIdentityReplay'] = (input) =>
    this.federation.recordExternalIdentityReplay(input);
  linkExternalIdentity: IdentityStore['linkExternalIdentity'] = (input) =>
    this.federationLinks.linkExternalIdentity(input);
  createFederationRegistration: IdentityStore['createFederationRegistration'] = (input) =>
    this.federationRegistrations.createFederationRegistration(input);
  updateFederationRegistration: IdentityStore['updateFederationRegistration'] = (input) =>
    this.federationRegistrations.updateFederationRegistration(input);
  deleteFederationRegistration: IdentityStore['deleteFederationRegistration'] = (input) =>
    this.federationRegistrations.deleteFederationRegistration(input);
  purgeExpiredRows: IdentityStore['purgeExpiredRows'] = (input) => this.maintenance.purgeExpiredRows(input);

  findDeviceGrant: IdentityStore['findDeviceGrant'] = (id) => this.deviceReads.findDeviceGrant(id);
  findDeviceGrantByDeviceCodeDigest: IdentityStore['findDeviceGrantByDeviceCodeDigest'] = (digest) =>
    this.deviceReads.findDeviceGrantByDeviceCodeDigest(digest);
  findDeviceGrantByUserCodeDigest: IdentityStore['findDeviceGrantByUserCodeDigest'] = (digest) =>
    this.deviceReads.findDeviceGrantByUserCodeDigest(digest);
  findDeviceTokenFamily: IdentityStore['findDeviceTokenFamily'] = (id) => this.deviceReads.findDeviceTokenFamily(id);
  findDeviceAccessTokenBySelector: IdentityStore['findDeviceAccessTokenBySelector'] = (selector) =>
    this.deviceReads.findDeviceAccessTokenBySelector(selector);
  findDeviceRefreshTokenBySelector: IdentityStore['findDeviceRefreshTokenBySelector'] = (selector) =>
    this.deviceReads.findDeviceRefreshTokenBySelector(selector);
  findDeviceAccessGrant: IdentityStore['findDeviceAccessGrant'] = (selector) =>
    this.deviceReads.findDeviceAccessGrant(selector);
  createDeviceGrant: IdentityStore['createDeviceGrant'] = (input) => this.deviceGrants.createDeviceGrant(input);
  recordDeviceGrantPoll: IdentityStore['recordDeviceGrantPoll'] = (input) =>
    this.deviceGrants.recordDeviceGrantPoll(input);
  inspectDeviceGrant: IdentityStore['inspectDeviceGrant'] = (input) => this.deviceGrants.inspectDeviceGrant(input);
  authorizeDeviceGrant: IdentityStore['authorizeDeviceGrant'] = (input) =>
    this.deviceGrants.authorizeDeviceGrant(input);
  denyDeviceGrant: IdentityStore['denyDeviceGrant'] = (input) => this.deviceGrants.denyDeviceGrant(input);
  cancelDeviceGrant: IdentityStore['cancelDeviceGrant'] = (input) => this.deviceGrants.cancelDeviceGrant(input);
  claimDeviceGrant: IdentityStore['claimDeviceGrant'] = (input) => this.deviceGrants.claimDeviceGrant(input);
  rotateDeviceRefreshToken: IdentityStore['rotateDeviceRefreshToken'] = (input) =>
    this.deviceTokens.rotateDeviceRefreshToken(input);
  revokeDeviceTokenFamily: IdentityStore['revokeDeviceTokenFamily'] = (input) =>
    this.deviceTokens.revokeDeviceTokenFamily(input);

  findScimConnectionGrant: IdentityStore['findScimConnectionGrant'] = (tokenId) =>
    this.scimReads.findScimConnectionGrant(tokenId);
  listScimConnections: IdentityStore['listScimConnections'] = (organizationId) =>
    this.scimReads.listScimConnections(organizationId);
  findScimConnection: IdentityStore['findScimConnection'] = (organizationId, connectionId) =>
    this.scimReads.findScimConnection(organizationId, connectionId);
  findScimUser: IdentityStore['findScimUser'] = (tenant, id) => this.scimReads.findScimUser(tenant, id);
  queryScimUsers: IdentityStore['queryScimUsers'] = (tenant, query, withGroups) =>
    this.scimReads.queryScimUsers(tenant, query, withGroups);
  findScimGroup: IdentityStore['findScimGroup'] = (tenant, id) => this.scimReads.findScimGroup(tenant, id);
  queryScimGroups: IdentityStore['queryScimGroups'] = (tenant, query) => this.scimReads.queryScimGroups(tenant, query);
  listScimGroupMembers: IdentityStore['listScimGroupMembers'] = (tenant, groupIds) =>
    this.scimReads.listScimGroupMembers(tenant, groupIds);
  listScimUserGroups: IdentityStore['listScimUserGroups'] = (tenant, userIds) =>
    this.scimReads.listScimUserGroups(tenant, userIds);
  findScimReplay: IdentityStore['findScimReplay'] = (tenant, receipt) => this.scimReads.findScimReplay(tenant, receipt);
  applyScimBatch: IdentityStore['applyScimBatch'] = (input) => this.scim.applyScimBatch(input);
  createScimConnection: IdentityStore['createScimConnection'] = (input) =>
    this.scimConnections.createScimConnection(input);
  revokeScimConnection: IdentityStore['revokeScimConnection'] = (input) =>
    this.scimConnections.revokeScimConnection(input);
  rotateScimConnectionToken: IdentityStore['rotateScimConnectionToken'] = (input) =>
    this.scimConnections.rotateScimConnectionToken(input);
}
