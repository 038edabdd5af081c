import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { issueServiceCredentialSecret } from './service-credential.token.js';
import { scopesDelegable, serviceScopesAllowed } from './service-scopes.js';
import type {
  NewServiceCredential,
  ServiceCredentialRecord,
  ServiceIdentityRecord,
} from '../store/identity-service.port.js';
import type { AuditEventInput } from '../store/identity-records.js';
import { storeRead } from '../http/route-kit.js';

/** The ids a service-identity route names in its path (all canonical UUIDv7, else 400). */
export interface ServiceIdentityPath {
  readonly organizationId: string;
  readonly serviceIdentityId: string;
}

/**
 * Issuance rules that configuration alone decides (identity-model §5.8): scopes in the service
 * allowlist and never identity-owned or recovery capabilities, else 400 `request_invalid`.
 *
 * @example
 * requireIssuableScopes(kernel, body.capabilities);
 */
export function requireIssuableScopes(kernel: IdentityKernel, scopes: readonly string[]): void {
  if (!serviceScopesAllowed(scopes, kernel.config.capabilities.service)) throw new IdentityError('request_invalid');
}

/**
 * The delegation rule: scopes ⊆ the acting user's effective capabilities in the route's
 * organization, else 400 `request_invalid`.
 *
 * @example
 * requireDelegableScopes(context, body.capabilities);
 */
export function requireDelegableScopes(context: IdentityContext, scopes: readonly string[]): void {
  if (!scopesDelegable(scopes, context.effectiveCapabilities)) throw new IdentityError('request_invalid');
}

/**
 * The service identity `{sid}` of the organization (in a state `usable` accepts), else 404
 * `not_found` — identical to an unknown identity or another organization's.
 *
 * @example
 * const identity = await ownedServiceIdentity(kernel, path, (i) => i.state === 'active');
 */
export async function ownedServiceIdentity(
  kernel: IdentityKernel,
  path: ServiceIdentityPath,
  usable: (identity: ServiceIdentityRecord) => boolean = () => true,
): Promise<ServiceIdentityRecord> {
  const identity = await storeRead(() => kernel.store.findServiceIdentity(path.serviceIdentityId));
  if (identity === null || identity.organizationId !== path.organizationId || !usable(identity))
    throw new IdentityError('not_found');
  return identity;
}

/**
 * The credential `{cid}` of the service identity `{sid}` (in a state `usable` accepts), else 404:
 * routes 44 and 45 check this before reading any body.
 *
 * @example
 * const credential = await ownedServiceCredential(kernel, identity, credentialId, (c) => c.state === 'active');
 */
export async function ownedServiceCredential(
  kernel: IdentityKernel,
  identity: ServiceIdentityRecord,
  credentialId: string,
  usable: (credential: ServiceCredentialRecord) => boolean,
): Promise<ServiceCredentialRecord> {
  const credential = await storeRead(() => kernel.store.findServiceCredentialByPrefix(credentialId));
  if (credential === null || credential.serviceIdentityId !== identity.id || !usable(credential))
    throw new IdentityError('not_found');
  return credential;
}

/**
 * A new credential of `serviceIdentityId`: the token (shown once) and the row to store, expiring
 * `lifetimeSeconds` (default: `lifetimes.serviceCredentialSeconds`) after `at`.
 *
 * @example
 * const { credential, token } = newServiceCredential(kernel, at, identity.id, scopes, body.lifetimeSeconds);
 */
export function newServiceCredential(
  kernel: IdentityKernel,
  at: Date,
  serviceIdentityId: string,
  capabilities: readonly string[],
  lifetimeSeconds: number | undefined,
): { credential: NewServiceCredential; token: string } {
  const issued = issueServiceCredentialSecret(kernel.runtime, kernel.keys.servicePepper);
  const seconds = lifetimeSeconds ?? kernel.config.lifetimes.serviceCredentialSeconds;
  return {
    token: issued.token,
    credential: {
      id: issued.id,
      serviceIdentityId,
      secretDigest: issued.secretDigest,
      capabilities: [...capabilities],
      expiresAt: new Date(at.getTime() + seconds * 1000),
    },
  };
}

/**
 * An audit event of the acting user on a service identity or credential, in the route's organization.
 *
 * @example
 * serviceAudit(kernel, call, organizationId, 'service_credential.revoked', { type: 'service_credential', id });
 */
export function serviceAudit(
  kernel: IdentityKernel,
  call: IdentityCall,
  organizationId: string,
  action: string,
  target: { type: 'service_identity' | 'service_credential'; id: string },
): AuditEventInput {
  return kernel.audit.event(call.exchange, call.at, {
    actor: { type: 'user', userId: call.context.principal.id },
    organizationId,
    action,
    target,
  });
}
