import type {
  NewServiceCredential,
  NewServiceIdentity,
  ServiceCredentialRecord,
  ServiceIdentityRecord,
} from '@tessera/identity';
import { abort, type Row } from './identity-store.gateway.js';
import { textArrayLiteral } from './identity-row.columns.js';
import { digest, instant, integer, optionalInstant, optionalText, text, textArray } from './identity-row.mappers.js';

/* Rows of tessera_identity.service_identities / service_credentials ↔ the port's records. */

/** Columns of a new active service identity. */
export function serviceIdentityColumns(identity: NewServiceIdentity, at: Date): Row {
  return {
    id: identity.id,
    organization_id: identity.organizationId,
    name: identity.name,
    description: identity.description,
    capabilities: textArrayLiteral(identity.capabilities),
    state: 'active',
    created_at: at,
    updated_at: at,
    revoked_at: null,
    version: 0,
  };
}

/** Columns of a new active service credential: the public prefix is the credential id. */
export function serviceCredentialColumns(credential: NewServiceCredential, at: Date): Row {
  return {
    id: credential.id,
    service_identity_id: credential.serviceIdentityId,
    public_prefix: credential.id,
    secret_digest_algorithm: credential.secretDigest.algorithm,
    secret_digest_encoded: credential.secretDigest.encoded,
    secret_digest_key_version: credential.secretDigest.keyVersion ?? abort('invalid_transition'),
    capabilities: textArrayLiteral(credential.capabilities),
    state: 'active',
    expires_at: credential.expiresAt,
    created_at: at,
    updated_at: at,
    last_used_at: null,
    rotated_at: null,
    rotated_to_id: null,
    revoked_at: null,
    version: 0,
  };
}

/** A service identity row (`prefix` reads joined columns selected as `<prefix><column>`). */
export function serviceIdentityFromRow(row: Row, prefix = ''): ServiceIdentityRecord {
  return {
    id: text(row, `${prefix}id`),
    organizationId: text(row, `${prefix}organization_id`),
    name: text(row, `${prefix}name`),
    description: optionalText(row, `${prefix}description`),
    capabilities: textArray(row, `${prefix}capabilities`),
    state: text(row, `${prefix}state`) as ServiceIdentityRecord['state'],
    version: integer(row, `${prefix}version`),
    createdAt: instant(row, `${prefix}created_at`),
    updatedAt: instant(row, `${prefix}updated_at`),
    revokedAt: optionalInstant(row, `${prefix}revoked_at`),
  };
}

/** A service credential row. */
export function serviceCredentialFromRow(row: Row): ServiceCredentialRecord {
  return {
    id: text(row, 'id'),
    serviceIdentityId: text(row, 'service_identity_id'),
    publicPrefix: text(row, 'public_prefix'),
    secretDigest: digest(row, 'secret_digest'),
    capabilities: textArray(row, 'capabilities'),
    state: text(row, 'state') as ServiceCredentialRecord['state'],
    expiresAt: instant(row, 'expires_at'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    lastUsedAt: optionalInstant(row, 'last_used_at'),
    rotatedAt: optionalInstant(row, 'rotated_at'),
    rotatedToId: optionalText(row, 'rotated_to_id'),
    revokedAt: optionalInstant(row, 'revoked_at'),
    version: integer(row, 'version'),
  };
}

/** `true` when every scope of `scopes` is one of `allowed`. */
export function scopesWithin(scopes: readonly string[], allowed: readonly string[]): boolean {
  const set = new Set(allowed);
  return scopes.every((scope) => set.has(scope));
}
