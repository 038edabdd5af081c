import type { IdentityContext } from '../context/identity-context.js';
import { isRestricted } from '../context/identity-context.js';
import type { OrganizationRole } from '../store/identity-records.js';

/** Codes a guard decision may deny with. */
export type GuardDenialCode =
  | 'authentication_required'
  | 'invalid_credentials'
  | 'session_expired'
  | 'session_revoked'
  | 'not_found'
  | 'step_up_required'
  | 'internal_error';

/** A guard's verdict: pure data, no I/O (identity-model §7.1). */
export type GuardDecision = { readonly allow: true } | { readonly allow: false; readonly code: GuardDenialCode };

/** Why a session cookie was treated as absent on an anonymous-capable route (identity-http §2.1). */
export type RecordedCredentialFailure = 'invalid_credentials' | 'session_revoked' | 'session_expired';

const ALLOW: GuardDecision = Object.freeze({ allow: true });
const deny = (code: GuardDenialCode): GuardDecision => ({ allow: false, code });

/** Default recent-passkey window: 5 minutes. */
export const RECENT_PASSKEY_MAX_AGE_SECONDS = 300;

/**
 * Any non-restricted identity: anonymous or restricted → 401 `authentication_required`, or the
 * cookie failure recorded when the request was resolved anonymously.
 *
 * @example
 * decideIdentity(context, exchangeFailure) // { allow: false, code: 'session_expired' }
 */
export function decideIdentity(
  context: IdentityContext | undefined,
  recorded?: RecordedCredentialFailure,
): GuardDecision {
  if (context === undefined) return deny(recorded ?? 'authentication_required');
  if (isRestricted(context)) return deny('authentication_required');
  return ALLOW;
}

/** Only a restricted (recovery-assurance) session passes. */
export function decideRecoveryEnrollmentSession(context: IdentityContext | undefined): GuardDecision {
  return isRestricted(context) ? ALLOW : deny('authentication_required');
}

/**
 * Organization scope from the route: an active organization and, for users, an active
 * membership; device and service principals pass on their organization alone. Anything else,
 * including a different organization than `expectedId`, is 404 `not_found`.
 */
export function decideOrganization(context: IdentityContext | undefined, expectedId?: string): GuardDecision {
  if (context === undefined || isRestricted(context)) return deny('not_found');
  const organization = context.organization;
  if (organization === undefined || organization.state !== 'active') return deny('not_found');
  if (expectedId !== undefined && organization.id !== expectedId) return deny('not_found');
  if (context.principal.kind !== 'user') return ALLOW;
  const membership = context.membership;
  if (membership === undefined || membership.state !== 'active' || membership.organizationId !== organization.id) {
    return deny('not_found');
  }
  return ALLOW;
}

/** A user principal whose organization role is in `roles` (exact set); anything else 404. */
export function decideOrganizationRole(
  context: IdentityContext | undefined,
  roles: readonly OrganizationRole[],
): GuardDecision {
  const scoped = decideOrganization(context);
  if (!scoped.allow) return scoped;
  if (context!.principal.kind !== 'user' || context!.role === undefined || !roles.includes(context!.role)) {
    return deny('not_found');
  }
  return ALLOW;
}

/** `capability` among the request's effective capabilities (restricted sessions have none); else 404. */
export function decideCapability(context: IdentityContext | undefined, capability: string): GuardDecision {
  if (context === undefined || isRestricted(context)) return deny('not_found');
  return context.effectiveCapabilities.has(capability) ? ALLOW : deny('not_found');
}

/**
 * A passkey or step-up session authenticated at most `maxAgeSeconds` before the captured request
 * time; anonymous → 401; otherwise 403 `step_up_required`; no captured time → 500 (misconfiguration).
 */
export function decideRecentPasskey(
  context: IdentityContext | undefined,
  maxAgeSeconds: number = RECENT_PASSKEY_MAX_AGE_SECONDS,
): GuardDecision {
  if (context === undefined) return deny('authentication_required');
  if (!(context.requestTime instanceof Date) || Number.isNaN(context.requestTime.getTime()))
    return deny('internal_error');
  const { principal, session } = context;
  if (principal.kind !== 'user' || session === undefined) return deny('step_up_required');
  if (principal.assurance !== 'passkey' && principal.assurance !== 'step_up') return deny('step_up_required');
  const age = context.requestTime.getTime() - session.authenticatedAt.getTime();
  return age >= 0 && age <= maxAgeSeconds * 1000 ? ALLOW : deny('step_up_required');
}
