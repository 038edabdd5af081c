import { IDENTITY_OWNED_CAPABILITIES, isCapabilityName } from '../organizations/capabilities.js';

/** Most scopes one identity or credential may carry (identity-http §4.2). */
export const MAX_SERVICE_SCOPES = 64;

/**
 * Service-credential scopes of identity-model §5.8 that configuration alone decides: a non-empty
 * list (≤ 64) of distinct valid capability names, each in the service allowlist and none
 * identity-owned (which includes `identity.account.recover`: recovery is never delegable).
 *
 * @example
 * serviceScopesAllowed(['package.publish'], config.capabilities.service); // true when allowlisted
 */
export function serviceScopesAllowed(scopes: readonly string[], allowlist: readonly string[]): boolean {
  if (scopes.length === 0 || scopes.length > MAX_SERVICE_SCOPES || new Set(scopes).size !== scopes.length) return false;
  const allowed = new Set(allowlist);
  return scopes.every(
    (scope) => isCapabilityName(scope) && allowed.has(scope) && !IDENTITY_OWNED_CAPABILITIES.has(scope),
  );
}

/**
 * The delegation rule: a manager grants a service credential only capabilities it holds itself
 * in that organization (its effective capabilities there).
 *
 * @example
 * if (!scopesDelegable(scopes, context.effectiveCapabilities)) throw new IdentityError('request_invalid');
 */
export function scopesDelegable(scopes: readonly string[], effective: ReadonlySet<string>): boolean {
  return scopes.every((scope) => effective.has(scope));
}

/**
 * `true` when every scope of `scopes` is one of `within` (credential scopes ⊆ identity scopes).
 *
 * @example
 * scopesWithin(['a.read'], identity.capabilities);
 */
export function scopesWithin(scopes: readonly string[], within: readonly string[]): boolean {
  const set = new Set(within);
  return scopes.every((scope) => set.has(scope));
}
