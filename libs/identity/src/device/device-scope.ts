import { IDENTITY_FIXED_LIMITS } from '../config/identity-bounds.config.js';
import { isCapabilityName } from '../organizations/capabilities.js';

/**
 * Longest `scope` parameter of `POST /oauth/device_authorization`, in characters
 * (`identity-http.md` §5).
 *
 * @example
 * if (scope.length > DEVICE_SCOPE_MAX_CHARS) throw new OAuthError('invalid_scope');
 */
export const DEVICE_SCOPE_MAX_CHARS = 4096;

/**
 * The capabilities a device-authorization request asks for, from its `scope` parameter
 * (`identity-http.md` §5): at most 4096 characters, capability names separated by single spaces
 * (RFC 6749 §3.3: no leading, trailing or doubled spaces), 1..64 of them, distinct (a repeated one
 * is refused), each a valid lower-case capability name in the device allowlist. `undefined` for a
 * missing or refused scope: the endpoint answers `invalid_scope`. The order of the request is kept.
 *
 * @example
 * parseDeviceScope('identity.profile package.publish', config.capabilities.device); // ['identity.profile', 'package.publish']
 * parseDeviceScope('Package.Publish', config.capabilities.device); // undefined
 */
export function parseDeviceScope(scope: string | undefined, allowlist: readonly string[]): string[] | undefined {
  if (scope === undefined || scope.length === 0 || scope.length > DEVICE_SCOPE_MAX_CHARS) return undefined;
  const capabilities = scope.split(' ');
  if (capabilities.length > IDENTITY_FIXED_LIMITS.scopesPerDeviceRequest) return undefined;
  if (new Set(capabilities).size !== capabilities.length) return undefined;
  const allowed = new Set(allowlist);
  return capabilities.every((name) => isCapabilityName(name) && allowed.has(name)) ? capabilities : undefined;
}

/**
 * The token response's `scope` (`identity-http.md` §5): the approved capabilities sorted
 * alphabetically (by code unit), space-joined.
 *
 * @example
 * formatTokenScope(['package.publish', 'identity.profile']); // 'identity.profile package.publish'
 */
export function formatTokenScope(capabilities: readonly string[]): string {
  return [...capabilities].sort().join(' ');
}

/**
 * When a new device access token expires: `lifetimeSeconds` (`lifetimes.deviceAccessTokenSeconds`)
 * after `now`, but never after the family's absolute expiry (`identity-model.md` §3).
 *
 * @example
 * const expiresAt = deviceAccessTokenExpiresAt(now, config.lifetimes.deviceAccessTokenSeconds, family.expiresAt);
 */
export function deviceAccessTokenExpiresAt(now: Date, lifetimeSeconds: number, familyExpiresAt: Date): Date {
  return new Date(Math.min(now.getTime() + lifetimeSeconds * 1000, familyExpiresAt.getTime()));
}

/**
 * The token response's `expires_in`: whole seconds the access token still has at `now`, rounded
 * down so a client never believes it valid for longer than it is; 0 once expired. A retry inside
 * the refresh window gets it recomputed this way for the same token.
 *
 * @example
 * expiresInSeconds(access.expiresAt, requestTime(exchange)); // 900 for a token issued now
 */
export function expiresInSeconds(expiresAt: Date, now: Date): number {
  return Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
}
