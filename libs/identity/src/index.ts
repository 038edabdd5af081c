export type * from './store/identity-records.js';
export { IdentityStore } from './store/identity-store.port.js';
export type {
  PlatformRecoveryAuthorizer,
  RecoveryNotificationSink,
  AdministrativeRecovery,
} from './recovery/admin-recovery.port.js';
export type {
  InvitationDelivery,
  InvitationNotificationSink,
  InvitationDeliverySettings,
} from './invitations/invitation-delivery.port.js';
export type { InvitationPreview } from './invitations/invitation-preview.js';
export type {
  AssertionSubjects,
  IdentityCredentialReads,
  IdentityCredentialCommands,
  NewChallenge,
  NewCredential,
  NewRecoveryCode,
  ChallengeClaim,
  RejectionAudit,
} from './store/identity-credential.port.js';
export type {
  IdentityServiceReads,
  IdentityServiceCommands,
  IdentityServicePort,
  ServiceIdentityRecord,
  ServiceIdentityState,
  ServiceCredentialRecord,
  ServiceCredentialState,
  ServiceCredentialGrant,
  ServiceCredentialReplacement,
  NewServiceIdentity,
  NewServiceCredential,
} from './store/identity-service.port.js';
export type {
  IdentityInvitationAuditReads,
  IdentityInvitationAuditCommands,
  IdentityInvitationAuditPort,
  AuditEventPosition,
  AuditEventPage,
  AuditExportBatch,
  AuditExportLineFormat,
  AuditPurgeResult,
  InvitationAcceptance,
  NewAcceptedMembership,
} from './store/identity-invitation-audit.port.js';
export type {
  FederatedSessionStanding,
  FederatedSignIn,
  FederatedSignInMode,
  FederationProviderEntry,
  IdentityFederationCommands,
  IdentityFederationReads,
  IdentityFederationRegistryReads,
} from './store/identity-federation.port.js';
export type {
  ExternalIdentityRecord,
  FederatedAssertion,
  FederationProtocol,
  FederationProviderControlRecord,
  FederationProviderLease,
  FederationProviderState,
  FederationRegistrationChange,
  FederationRegistrationRecord,
  FederationTransactionRecord,
  NewFederationRegistration,
  SamlSignaturePolicy,
} from './store/identity-federation.records.js';
export type { ExpiredRowsPurge, ExpiringRows, IdentityMaintenanceCommands } from './store/identity-maintenance.port.js';
export type {
  IdentityScimCommands,
  IdentityScimPort,
  IdentityScimReads,
  NewScimConnectionToken,
  ScimAuditFactory,
  ScimBatchResult,
  ScimGroupStep,
  ScimMutation,
  ScimReceiptInput,
} from './store/identity-scim.port.js';
export type {
  ScimConnectionGrant,
  ScimConnectionRecord,
  ScimConnectionState,
  ScimConnectionTokenRecord,
  ScimEmail,
  ScimEnterpriseUser,
  ScimGroupMember,
  ScimGroupRecord,
  ScimGroupRoleRule,
  ScimName,
  ScimRole,
  ScimTenant,
  ScimTokenState,
  ScimUserAttributes,
  ScimUserGroup,
  ScimUserRecord,
} from './store/identity-scim.records.js';
export type {
  ScimComparator,
  ScimFilter,
  ScimFilterValue,
  ScimGroupFilter,
  ScimGroupFilterAttribute,
  ScimGroupSortKey,
  ScimListPage,
  ScimListQuery,
  ScimUserFilter,
  ScimUserFilterAttribute,
  ScimUserSortKey,
} from './scim/filter/scim-filter.ast.js';
export type {
  DeviceAccessGrant,
  DeviceAccessTokenRecord,
  DeviceAccessTokenState,
  DeviceFamilyStanding,
  DeviceGrantAuthorization,
  DeviceGrantInspection,
  DeviceGrantRecord,
  DeviceGrantState,
  DeviceRefreshTokenRecord,
  DeviceRefreshTokenState,
  DeviceTokenFamilyRecord,
  DeviceTokenFamilyState,
  DeviceTokenPair,
  NewDeviceGrant,
  NewDeviceToken,
  NewDeviceTokenPair,
} from './store/identity-device.records.js';
export { deviceFamilyStanding } from './store/identity-device.records.js';
export { DEVICE_CODE_GRANT_TYPE } from './device/device-oauth.wire.js';
export type { DeviceAuthorizationResponse, DeviceTokenResponse } from './device/device-oauth.wire.js';
export {
  decideDevicePoll,
  DEVICE_MAX_POLLING_INTERVAL_SECONDS,
  DEVICE_SLOW_DOWN_STEP_SECONDS,
} from './device/device-poll.decision.js';
export type { DevicePollDecision, DevicePollGrant } from './device/device-poll.decision.js';
export type {
  DeviceFamilyReference,
  DevicePollOutcome,
  DeviceRefreshEvent,
  DeviceRefreshOutcome,
  IdentityDeviceCommands,
  IdentityDevicePort,
  IdentityDeviceReads,
} from './store/identity-device.port.js';
export type {
  IdentityOrganizationReads,
  IdentityOrganizationCommands,
  OrganizationChange,
  MembershipChange,
  MembershipMutation,
} from './store/identity-organization.port.js';
export type {
  IdentityStoreReads,
  IdentitySessionCommands,
  IdentityEnrollmentCommands,
  IdentityAuditCommands,
  IdentityEnvironmentCommands,
  DatabaseEngine,
  SchemaVersionState,
  EnvironmentRefusal,
  EnvironmentResult,
  NewSession,
  NewUser,
  NewOrganization,
  NewMembership,
  NewInvitation,
  StoreFailureCode,
  StoreResult,
} from './store/identity-store.port.js';
export { IdentityRateLimiter } from './store/identity-rate-limiter.port.js';
export { IdentityChangeFeed } from './store/identity-change-feed.port.js';
export type { IdentityChangeSubscriber, IdentityChangeSubscription } from './store/identity-change-feed.port.js';
export type { RateLimitPolicy, RateLimitDecision } from './store/identity-rate-limiter.port.js';
export type {
  DeviceDelegation,
  IdentityContext,
  IdentityPrincipal,
  PrincipalKind,
  PrincipalAssurance,
} from './context/identity-context.js';
export { ASSURANCE_LEVEL } from './context/identity-context.js';
export {
  ROLE_RANK,
  ROLE_CAPABILITY_MATRIX,
  IDENTITY_OWNED_CAPABILITIES,
  isCapabilityName,
  roleCapabilities,
} from './organizations/capabilities.js';
export {
  decideIdentity,
  decideRecoveryEnrollmentSession,
  decideOrganization,
  decideOrganizationRole,
  decideCapability,
  decideRecentPasskey,
  RECENT_PASSKEY_MAX_AGE_SECONDS,
} from './guards/identity-decisions.js';
export type { GuardDecision, GuardDenialCode, RecordedCredentialFailure } from './guards/identity-decisions.js';
export {
  IDENTITY_ERROR_CATALOGUE,
  IDENTITY_ERROR_CODES,
  EMITTED_IDENTITY_ERROR_CODES,
  IdentityError,
  identityErrorBody,
  isIdentityErrorCode,
} from './errors/identity.errors.js';
export type { IdentityErrorCode, IdentityErrorBody, IdentityErrorDefinition } from './errors/identity.errors.js';
export { StoreError, STORE_ERROR_CODES, mapStoreError } from './errors/store.errors.js';
export type { StoreErrorCode, StoreErrorDomain } from './errors/store.errors.js';
export {
  IdentityConfigError,
  IdentityConfigEnvError,
  IdentityStartupError,
  IDENTITY_STARTUP_ERROR_MESSAGE,
} from './errors/identity-boot.errors.js';
export type { IdentityConfigRule, IdentityStartupCheck } from './errors/identity-boot.errors.js';
export type {
  IdentityConfig,
  ResolvedIdentityConfig,
  IdentityEnvironment,
  RegistrationPolicy as IdentityRegistrationPolicy,
  RateLimitPolicyName,
  RateLimitPolicyConfig,
  IdentitySecretsConfig,
  SessionCookieConfig,
  ForwardingConfig,
  CapabilityAllowlists,
  AuditConfig,
  MaintenanceConfig,
} from './config/identity.config.js';
export {
  DEFAULT_IDENTITY_LIFETIMES,
  DEFAULT_IDENTITY_LIMITS,
  DEFAULT_RATE_LIMITS,
  DEFAULT_SESSION_COOKIE,
  DEFAULT_REQUEST_ID_HEADER,
  IDENTITY_CONFIG_DEFAULTS,
  IDENTITY_ENVIRONMENTS,
  resolveIdentityConfig,
} from './config/identity-config.defaults.js';
export { IDENTITY_CONFIG_BOUNDS, type LifetimeBound } from './config/identity-bounds.config.js';
export { validateIdentityConfig, createIdentityConfig } from './config/identity-config.validator.js';
export { identityConfigFromEnv, IDENTITY_ENV_VARIABLES } from './config/identity-config.env.js';
export type { IdentityEnvVariable } from './config/identity-config.env.js';
export type {
  IdentityRuntime,
  IdentityClock,
  RandomSource,
  IdentityCrypto,
  IdentityHttpClient,
} from './runtime/identity.runtime.js';
export { createNodeIdentityRuntime } from './runtime/node-identity.runtime.js';
export type { NodeIdentityRuntimeOptions } from './runtime/node-identity.runtime.js';
export {
  createEnvSecretResolver,
  createInMemorySecretResolver,
  SecretResolutionError,
} from './runtime/secret.resolver.js';
export { createFileSecretResolver, createEnvAndFileSecretResolver } from './runtime/file-secret.resolver.js';
export type { SecretResolver } from './runtime/secret.resolver.js';
export type { KeyRing } from './runtime/key-ring.resolver.js';
export { requireReady } from './runtime/identity-readiness.check.js';
export type { IdentityKeyMaterial } from './runtime/identity-readiness.check.js';
export { FrozenClock, systemClock } from './runtime/frozen.clock.js';
export { formatTimestamp } from './tokens/timestamp.format.js';
export { isCanonicalUuidV7 } from './tokens/uuid-v7.generator.js';
export type {
  CapabilityResolver,
  CapabilityResolverInput,
  OrganizationSelector,
} from './context/capability-resolver.js';
export { respondIdentityError } from './http/identity-response.js';
export {
  identityOpenApiDocument,
  type IdentityOpenApiOptions,
  type OpenApiDocument,
} from './http/openapi/identity-openapi.js';
export {
  getIdentityContext,
  getRequestId,
  getRequestTime,
  getRecordedCredentialFailure,
} from './http/identity-exchange.js';
export { IdentityModule } from './identity.module.js';
export { IDENTITY_MODULE_OPTIONS } from './identity.module-definition.js';
export type {
  IdentityModuleOptions,
  IdentityModuleExtras,
  IdentityNotificationSink,
  IdentityInvitationOptions,
} from './identity.module-definition.js';
export { IdentityService } from './identity.service.js';
export { IdentityGuard } from './guards/identity.guard.js';
export { IdentityExceptionFilter } from './guards/identity-exception.filter.js';
export {
  RequireIdentity,
  RequireRecoveryEnrollmentSession,
  RequireOrganization,
  RequireOrganizationRole,
  RequireCapability,
  RequireRecentPasskey,
  CurrentIdentity,
  CurrentPrincipal,
  RequestId,
  RequestTime,
} from './guards/identity.decorators.js';
export {
  requireIdentity,
  requireRecoveryEnrollmentSession,
  requireOrganization,
  requireOrganizationRole,
  requireCapability,
  requireRecentPasskey,
} from './guards/identity-guard.middleware.js';
export { identityErrorMapper } from './http/identity-error.mapper.js';
export { IDENTITY_ATTRIBUTES } from './http/identity-exchange.js';
export { IdentityInvitations } from './invitations/invitation.service.js';
export type { CreateInvitationInput } from './invitations/invitation.service.js';
export { IdentityAudit } from './audit/audit.service.js';
export type { AuditPurgeOptions } from './audit/audit.service.js';
export { IdentityMaintenance } from './maintenance/identity-maintenance.service.js';
export { IdentityHealth } from './health/identity-health.service.js';
export type {
  HealthCheckOutcome,
  IdentityLiveness,
  IdentityReadiness,
  IdentityReadinessChecks,
} from './health/identity-health.service.js';
export type { IdentityHealthOptions } from './health/identity-health.options.js';
export type { MaintenanceRun, MaintenanceRunOptions } from './maintenance/identity-maintenance.service.js';
export { encodeAuditCursor, decodeAuditCursor } from './audit/audit-cursor.js';
export { auditExportLines } from './audit/audit-export.format.js';
export type { AuditCursor } from './audit/audit-cursor.js';
export { issueSession } from './sessions/session-issuer.js';
export type { IssuedSession, SessionIssue, SessionLifetimes } from './sessions/session-issuer.js';
export type {
  IdentityFederationOptions,
  StaticFederationProvider,
  StaticOidcProvider,
  StaticSamlProvider,
} from './federation/federation.options.js';
export { FederationProtocolError, type FederationFailure } from './federation/federation-protocol.error.js';
export {
  parseScimGroupFilter,
  parseScimSortBy,
  parseScimUserFilter,
  SCIM_FILTER_MAX_COMPARISONS,
  SCIM_FILTER_MAX_DEPTH,
  SCIM_FILTER_MAX_LENGTH,
} from './scim/filter/scim-filter.parser.js';
export { EMPTY_SCIM_USER } from './scim/resources/scim-user.assign.js';
