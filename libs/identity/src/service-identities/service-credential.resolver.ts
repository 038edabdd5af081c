import type { IdentityContext, IdentityPrincipal } from '../context/identity-context.js';
import type { BearerRequest, BearerResolution, BearerResolver } from '../http/bearer-credential.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { IdentityServicePort, ServiceCredentialGrant } from '../store/identity-service.port.js';
import { parseServiceCredential, serviceCredentialMatches } from './service-credential.token.js';
import { serviceScopesAllowed } from './service-scopes.js';

/** Settings of {@link ServiceCredentialResolver}. */
export interface ServiceCredentialSettings {
  /** How long a rotated credential still authenticates after `rotatedAt`. @default 600 */
  readonly rotationOverlapSeconds: number;
  /** `lastUsedAt` is written at most once per this many seconds per credential. @default 60 */
  readonly touchIntervalSeconds: number;
  /** The service-credential scope allowlist (re-checked at every authentication). */
  readonly allowlist: readonly string[];
}

const invalid: BearerResolution = Object.freeze({ ok: false, code: 'invalid_credentials' });

/**
 * `true` while the credential authenticates at `now`: `active`, or `rotated` within the overlap
 * after `rotatedAt`; in both cases before its own expiry (identity-model §5.8).
 *
 * @example
 * credentialUsable(credential, now, 600);
 */
export function credentialUsable(
  credential: ServiceCredentialGrant['credential'],
  now: Date,
  overlapSeconds: number,
): boolean {
  const t = now.getTime();
  if (t >= credential.expiresAt.getTime()) return false;
  if (credential.state === 'active') return true;
  return (
    credential.state === 'rotated' &&
    credential.rotatedAt !== null &&
    t < credential.rotatedAt.getTime() + overlapSeconds * 1000
  );
}

/**
 * The context of a service principal (identity-model §1): kind `service`, id = the service
 * identity, assurance and method `service_credential`, direct capabilities = the credential's
 * scopes, roles empty. It acts only in its own organization: a route naming another organization
 * gets a context without organization and without capabilities (every guard there answers 404); a
 * route naming none gets no organization scope (`@RequireOrganization()` answers 404) but keeps
 * the direct scopes.
 * No `CapabilityResolver` widens a credential beyond its scopes.
 *
 * @example
 * const context = buildServiceContext(grant, { organizationId, requestId, requestTime });
 */
export function buildServiceContext(
  grant: ServiceCredentialGrant,
  request: Pick<BearerRequest, 'organizationId' | 'requestId' | 'requestTime'>,
): IdentityContext {
  const scopes = [...grant.credential.capabilities];
  const principal: IdentityPrincipal = {
    kind: 'service',
    id: grant.identity.id,
    assurance: 'service_credential',
    authenticationMethod: 'service_credential',
    directCapabilities: scopes,
    roles: [],
  };
  const base = { principal, requestId: request.requestId, requestTime: request.requestTime };
  // No route-selected organization means no organization scope, as for a user (identity-model §7.1):
  // the credential's own organization is never assumed.
  if (request.organizationId === undefined) return { ...base, effectiveCapabilities: new Set(scopes) };
  if (request.organizationId !== grant.organization.id) return { ...base, effectiveCapabilities: new Set() };
  return { ...base, organization: grant.organization, effectiveCapabilities: new Set(scopes) };
}

/**
 * Resolves a bearer service credential (identity-http §2.1): prefix lookup (credential, identity
 * and organization in one read), constant-time digest check under the stored key version, a
 * usable credential ({@link credentialUsable}), active identity and organization, scopes still in
 * the allowlist; then `lastUsedAt` at most once per touch interval. Every refusal is
 * `invalid_credentials`; a store error is `service_unavailable`.
 *
 * @example
 * const resolver = new ServiceCredentialResolver(store, keys.servicePepper, { rotationOverlapSeconds: 600, touchIntervalSeconds: 60, allowlist });
 */
export class ServiceCredentialResolver implements BearerResolver {
  constructor(
    private readonly store: Pick<IdentityServicePort, 'findServiceCredentialGrant' | 'touchServiceCredential'>,
    private readonly peppers: KeyRing,
    private readonly settings: ServiceCredentialSettings,
  ) {}

  async resolve(request: BearerRequest): Promise<BearerResolution> {
    const presented = parseServiceCredential(request.token);
    if (presented === undefined) return invalid;
    const now = request.requestTime;
    let grant: ServiceCredentialGrant | null;
    try {
      grant = await this.store.findServiceCredentialGrant(presented.selector);
    } catch {
      return { ok: false, code: 'service_unavailable' };
    }
    if (grant === null || !serviceCredentialMatches(this.peppers, presented, grant.credential.secretDigest))
      return invalid;
    if (!credentialUsable(grant.credential, now, this.settings.rotationOverlapSeconds)) return invalid;
    if (grant.identity.state !== 'active' || grant.organization.state !== 'active') return invalid;
    if (!serviceScopesAllowed(grant.credential.capabilities, this.settings.allowlist)) return invalid;
    if (!(await this.touch(grant, now))) return { ok: false, code: 'service_unavailable' };
    return { ok: true, context: buildServiceContext(grant, request) };
  }

  /** Writes `lastUsedAt` once per interval; a lost race (someone touched first) is fine, an error is not. */
  private async touch(grant: ServiceCredentialGrant, now: Date): Promise<boolean> {
    const interval = this.settings.touchIntervalSeconds * 1000;
    const last = grant.credential.lastUsedAt;
    if (last !== null && now.getTime() - last.getTime() < interval) return true;
    try {
      const touched = await this.store.touchServiceCredential({
        credentialId: grant.credential.id,
        lastUsedAt: now,
        staleBefore: new Date(now.getTime() - interval),
      });
      return touched.ok;
    } catch {
      return false;
    }
  }
}
