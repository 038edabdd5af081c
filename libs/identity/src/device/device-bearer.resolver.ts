import type { AuditEventBuilder } from '../audit/audit-event.builder.js';
import type { IdentityContext, IdentityPrincipal } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { BearerRequest, BearerResolution, BearerResolver } from '../http/bearer-credential.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { IdentityDevicePort } from '../store/identity-device.port.js';
import { deviceFamilyStanding, type DeviceAccessGrant } from '../store/identity-device.records.js';
import { deviceTokenMatches, parseDeviceToken } from '../tokens/device-token.format.js';

const invalid: BearerResolution = Object.freeze({ ok: false, code: 'invalid_credentials' });
const unavailable: BearerResolution = Object.freeze({ ok: false, code: 'service_unavailable' });

/**
 * `true` while a device access token authenticates at `now` (identity-model §5.5): the token and
 * its family `active`, and `now` before both expiries.
 *
 * @example
 * if (!deviceAccessUsable(grant, request.requestTime)) return invalid;
 */
export function deviceAccessUsable(grant: Pick<DeviceAccessGrant, 'accessToken' | 'family'>, now: Date): boolean {
  const t = now.getTime();
  const { accessToken, family } = grant;
  return (
    accessToken.state === 'active' &&
    family.state === 'active' &&
    accessToken.familyId === family.id &&
    t < accessToken.expiresAt.getTime() &&
    t < family.expiresAt.getTime()
  );
}

/**
 * The context of a device principal (identity-model §1, §5.5): kind `device`, id = the family's
 * user (the device acts for that user; audit actors are that user), assurance and method
 * `device_token`, direct capabilities = the family's approved scopes, roles empty, no session, no
 * membership and no role (a device has role `device` in its organization's summary only). Like a
 * service principal it acts only in its own organization: a route naming another organization
 * gets a context without organization and without capabilities (every guard there answers 404); a
 * route naming none gets no organization scope but keeps the scopes. `device` carries the family
 * and its organization for the identity routes that answer about them (1, 21). No
 * `CapabilityResolver` widens a family beyond its approved scopes.
 *
 * @example
 * const context = buildDeviceContext(grant, { organizationId, requestId, requestTime });
 */
export function buildDeviceContext(
  grant: DeviceAccessGrant,
  request: Pick<BearerRequest, 'organizationId' | 'requestId' | 'requestTime'>,
): IdentityContext {
  const scopes = [...grant.family.capabilities];
  const principal: IdentityPrincipal = {
    kind: 'device',
    id: grant.user.id,
    assurance: 'device_token',
    authenticationMethod: 'device_token',
    directCapabilities: scopes,
    roles: [],
  };
  const base = {
    principal,
    device: { familyId: grant.family.id, clientId: grant.family.clientId, organization: grant.organization },
    requestId: request.requestId,
    requestTime: request.requestTime,
  };
  if (request.organizationId === undefined) return { ...base, effectiveCapabilities: new Set(scopes) };
  if (request.organizationId !== grant.organization.id) return { ...base, effectiveCapabilities: new Set() };
  return { ...base, organization: grant.organization, effectiveCapabilities: new Set(scopes) };
}

/**
 * Resolves a bearer device access token (identity-http §2.1, identity-model §5.5): one read of the
 * token with its family, user, organization and membership; a constant-time digest check under the
 * stored key version of the device pepper; token and family `active` and unexpired
 * ({@link deviceAccessUsable}). A family whose delegation no longer holds (membership removed, its
 * role or version changed, user or organization no longer active) is revoked
 * (`membership_authorization_changed`, audit `device_token.revoked`) and the bearer refused. Every
 * refusal is `invalid_credentials`; a store error is `service_unavailable`.
 *
 * @example
 * const resolver = new DeviceAccessTokenResolver(kernel.store, kernel.keys.devicePepper, kernel.audit);
 */
export class DeviceAccessTokenResolver implements BearerResolver {
  constructor(
    private readonly store: Pick<IdentityDevicePort, 'findDeviceAccessGrant' | 'revokeDeviceTokenFamily'>,
    private readonly peppers: KeyRing,
    private readonly audit: Pick<AuditEventBuilder, 'event'>,
  ) {}

  async resolve(request: BearerRequest): Promise<BearerResolution> {
    const presented = parseDeviceToken(request.token);
    if (presented === undefined) return invalid;
    let grant: DeviceAccessGrant | null;
    try {
      grant = await this.store.findDeviceAccessGrant(presented.selector);
    } catch {
      return unavailable;
    }
    if (grant === null || !deviceTokenMatches('access', this.peppers, presented, grant.accessToken.tokenDigest))
      return invalid;
    if (!deviceAccessUsable(grant, request.requestTime)) return invalid;
    if (grant.standing !== 'current' || deviceFamilyStanding(grant.family, grant) !== 'current') {
      return (await this.revokeDrifted(grant, request)) ? invalid : unavailable;
    }
    return { ok: true, context: buildDeviceContext(grant, request) };
  }

  /** Revokes the family of a drifted delegation; `false` when the store could not (503). */
  private async revokeDrifted(grant: DeviceAccessGrant, request: BearerRequest): Promise<boolean> {
    const { family } = grant;
    const at = request.requestTime;
    try {
      const revoked = await this.store.revokeDeviceTokenFamily({
        family: { familyId: family.id },
        clientId: null,
        reason: 'membership_authorization_changed',
        at,
        audit: (current) =>
          this.audit.event(request.exchange, at, {
            actor: { type: 'system' },
            action: 'device_token.revoked',
            organizationId: current.organizationId,
            target: { type: 'device_grant', id: current.deviceGrantId },
            outcome: 'denied',
            reasonCode: 'membership_authorization_changed',
          }),
      });
      // A family revoked meanwhile by another request (or gone) refuses the bearer all the same.
      return revoked.ok || revoked.code === 'not_found' || revoked.code === 'invalid_transition';
    } catch {
      return false;
    }
  }
}

/** A device principal's role in its organization's summary (routes 21, 23). */
export const DEVICE_ROLE = 'device';

/**
 * Routes that admit DEV only with a scope (identity-http §4.1: route 1 `identity.profile`, routes
 * 21 and 23 `identity.organizations`): a device principal without `capability` among its effective
 * capabilities → 404 `not_found`; any other caller passes.
 *
 * @example
 * requireDeviceScope(context, 'identity.profile');
 */
export function requireDeviceScope(context: IdentityContext, capability: string): void {
  if (context.principal.kind === 'device' && !context.effectiveCapabilities.has(capability))
    throw new IdentityError('not_found');
}
