import type { Exchange, Middleware } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityContext } from '../context/identity-context.js';
import { withResolverGrants, type CapabilityResolver } from '../context/capability-resolver.js';
import type { OrganizationRole } from '../store/identity-records.js';
import { getIdentityContext, getRecordedCredentialFailure } from '../http/identity-exchange.js';
import {
  decideCapability,
  decideIdentity,
  decideOrganization,
  decideOrganizationRole,
  decideRecentPasskey,
  decideRecoveryEnrollmentSession,
  type GuardDecision,
} from './identity-decisions.js';

function guard(decide: (context: IdentityContext | undefined, exchange: Exchange) => GuardDecision): Middleware {
  return async (exchange, next) => {
    const decision = decide(getIdentityContext(exchange), exchange);
    if (!decision.allow) throw new IdentityError(decision.code);
    await next();
  };
}

/** Radix-route guard: a non-restricted identity (identity-model §7.1). @example router.get('/x', requireIdentity(), handler) */
export const requireIdentity = (): Middleware =>
  guard((context, exchange) => decideIdentity(context, getRecordedCredentialFailure(exchange)));

/** Radix-route guard: a restricted (recovery) session only. */
export const requireRecoveryEnrollmentSession = (): Middleware =>
  guard((context) => decideRecoveryEnrollmentSession(context));

/** Radix-route guard: organization scope (optionally a specific organization); else 404. */
export const requireOrganization = (expectedId?: string): Middleware =>
  guard((context) => decideOrganization(context, expectedId));

/** Radix-route guard: one of the given organization roles; else 404. */
export const requireOrganizationRole = (...roles: OrganizationRole[]): Middleware =>
  guard((context) => decideOrganizationRole(context, roles));

/** Radix-route guard: a recent passkey (default 5 minutes). */
export const requireRecentPasskey = (maxAgeSeconds?: number): Middleware =>
  guard((context) => decideRecentPasskey(context, maxAgeSeconds));

/**
 * Radix-route guard: `capability` among the effective capabilities; an extra `resolver` is awaited
 * first — for a user principal with an active membership in the request's active organization
 * only (identity-model §6.2), never granting identity-owned capabilities — then the pure decision runs.
 */
export function requireCapability(capability: string, resolver?: CapabilityResolver): Middleware {
  return async (exchange, next) => {
    const context = getIdentityContext(exchange);
    const widened = resolver === undefined ? context : await withResolverGrants(context, resolver);
    const decision = decideCapability(widened, capability);
    if (!decision.allow) throw new IdentityError(decision.code);
    await next();
  };
}
