import type { AuditEventBuilder } from './audit/audit-event.builder.js';
import type { ResolvedIdentityConfig } from './config/identity.config.js';
import type { CapabilityResolver } from './context/capability-resolver.js';
import type { IdentityKeyMaterial } from './runtime/identity-readiness.check.js';
import type { IdentityRuntime } from './runtime/identity.runtime.js';
import type { IdentityRateLimiter } from './store/identity-rate-limiter.port.js';
import type { IdentityStore } from './store/identity-store.port.js';
import type { SessionValidationCache } from './sessions/session-validation.cache.js';
import type { AdministrativeRecovery } from './recovery/admin-recovery.port.js';
import type { FederationSettings } from './federation/federation-settings.js';
import type { ScimSettings } from './scim/scim.options.js';
import type { InvitationDeliverySettings } from './invitations/invitation-delivery.port.js';

/**
 * Everything an identity service needs once startup checks passed: validated configuration,
 * runtime, resolved key material, the store, the limiter and the audit builder.
 */
export interface IdentityKernel {
  readonly config: ResolvedIdentityConfig;
  readonly runtime: IdentityRuntime;
  readonly keys: IdentityKeyMaterial;
  /** The store; with the session cache enabled, wrapped so its commands invalidate {@link sessionCache}. */
  readonly store: IdentityStore;
  /** The per-process session read cache (enabled with `lifetimes.sessionCacheSeconds` > 0 and an `IdentityChangeFeed`). */
  readonly sessionCache: SessionValidationCache;
  readonly rateLimiter: IdentityRateLimiter;
  readonly audit: AuditEventBuilder;
  readonly capabilityResolvers: readonly CapabilityResolver[];
  /** Present only when both a platform authorizer and a notification sink are configured. */
  readonly adminRecovery?: AdministrativeRecovery;
  /** Present only with a `notificationSink.deliverInvitation`: route 31 sends the enrolment link. */
  readonly invitationDelivery?: InvitationDeliverySettings;
  /** Validated federation options (static providers resolved). */
  readonly federation: FederationSettings;
  /** Validated SCIM options. */
  readonly scim: ScimSettings;
}
