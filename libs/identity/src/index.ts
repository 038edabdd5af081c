export type * from './store/identity-records.js';
export { IdentityStore } from './store/identity-store.port.js';
export type {
  IdentityStoreReads,
  IdentitySessionCommands,
  IdentityEnrollmentCommands,
  IdentityAuditCommands,
  IdentityEnvironmentCommands,
  NewSession,
  NewUser,
  NewOrganization,
  NewMembership,
  NewInvitation,
  StoreFailureCode,
  StoreResult,
} from './store/identity-store.port.js';
export { IdentityRateLimiter } from './store/identity-rate-limiter.port.js';
export type { RateLimitPolicy, RateLimitDecision } from './store/identity-rate-limiter.port.js';
export type {
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
