import type { ServiceCredentialRecord, ServiceIdentityRecord } from '../store/identity-service.port.js';
import { formatTimestamp } from '../tokens/timestamp.format.js';

/**
 * `ServiceIdentity` (identity-http §4.5).
 *
 * @example
 * respondIdentityJson(exchange, 200, identities.map(serviceIdentityView));
 */
export function serviceIdentityView(identity: ServiceIdentityRecord) {
  return {
    id: identity.id,
    organizationId: identity.organizationId,
    name: identity.name,
    ...(identity.description === null ? {} : { description: identity.description }),
    capabilities: [...identity.capabilities],
    state: identity.state,
    version: identity.version,
    createdAt: formatTimestamp(identity.createdAt),
    updatedAt: formatTimestamp(identity.updatedAt),
    ...(identity.revokedAt === null ? {} : { revokedAt: formatTimestamp(identity.revokedAt) }),
  };
}

/**
 * `CredentialView` (identity-http §4.5): never the secret or its digest. An active credential
 * past its expiry is shown `expired` (computed at the request time, never stored).
 *
 * @example
 * respondIdentityJson(exchange, 200, credentials.map((c) => credentialView(c, now)));
 */
export function credentialView(credential: ServiceCredentialRecord, now: Date) {
  const expired = credential.state === 'active' && now.getTime() >= credential.expiresAt.getTime();
  return {
    id: credential.id,
    serviceIdentityId: credential.serviceIdentityId,
    publicPrefix: credential.publicPrefix,
    capabilities: [...credential.capabilities],
    state: expired ? 'expired' : credential.state,
    createdAt: formatTimestamp(credential.createdAt),
    expiresAt: formatTimestamp(credential.expiresAt),
    ...(credential.lastUsedAt === null ? {} : { lastUsedAt: formatTimestamp(credential.lastUsedAt) }),
    ...(credential.rotatedAt === null ? {} : { rotatedAt: formatTimestamp(credential.rotatedAt) }),
    ...(credential.revokedAt === null ? {} : { revokedAt: formatTimestamp(credential.revokedAt) }),
  };
}
