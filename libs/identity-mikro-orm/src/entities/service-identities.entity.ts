import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  SERVICE_CREDENTIAL_STATES,
  SERVICE_IDENTITY_STATES,
  type KeyedDigestAlgorithm,
  type ServiceCredentialState,
  type ServiceIdentityState,
} from '../schema/identity-schema.values.js';
import {
  capabilitiesCheck,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  keyedDigestChecks,
  referenceColumn,
  textArrayColumn,
  textColumn,
  timestampColumn,
  UUID_V7_PATTERN,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.service_identities`.
 *
 * @example
 * const identities = await em.find(IdentityServiceIdentitySchema, { organizationId });
 */
export interface IdentityServiceIdentityRow {
  id: string;
  organizationId: string;
  /** Unique per organization. */
  name: string;
  description: string | null;
  /** The identity's scopes (capability names, 1..64). */
  capabilities: string[];
  state: ServiceIdentityState;
  createdAt: Date;
  updatedAt: Date;
  /** Set exactly when `state` is `revoked`. */
  revokedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.service_identities` (UNIQUE (organization_id, name)).
 *
 * @example
 * await em.insert(IdentityServiceIdentitySchema, { id, organizationId, name: 'ci', description: null, capabilities: ['content.read'], state: 'active', createdAt: now, updatedAt: now, revokedAt: null, version: 0 });
 */
export const IdentityServiceIdentitySchema = new EntitySchema<IdentityServiceIdentityRow>({
  name: IDENTITY_ENTITY_NAMES.serviceIdentity,
  tableName: 'service_identities',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'service_identities_organization_id_foreign',
    ),
    name: textColumn('name'),
    description: textColumn('description', { nullable: true }),
    capabilities: textArrayColumn('capabilities'),
    state: enumColumn('state', SERVICE_IDENTITY_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [{ name: 'service_identities_organization_id_name_unique', properties: ['organizationId', 'name'] }],
  checks: [
    check('service_identities_name_check', 'char_length(name) >= 1 and char_length(name) <= 200'),
    check('service_identities_description_check', 'char_length(description) <= 2000'),
    capabilitiesCheck('service_identities', 'capabilities'),
    check('service_identities_revocation_check', "(state = 'revoked') = (revoked_at is not null)"),
    check('service_identities_version_check', 'version >= 0'),
  ],
});

/**
 * One row of `tessera_identity.service_credentials`: the secret is stored as a keyed digest only.
 *
 * @example
 * const credential = await em.findOne(IdentityServiceCredentialSchema, { publicPrefix });
 */
export interface IdentityServiceCredentialRow {
  id: string;
  serviceIdentityId: string;
  /** The credential id as it appears before the `.` of the token; unique. */
  publicPrefix: string;
  secretDigestAlgorithm: KeyedDigestAlgorithm;
  secretDigestEncoded: string;
  secretDigestKeyVersion: string;
  /** The credential's scopes (⊆ the identity's). */
  capabilities: string[];
  state: ServiceCredentialState;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  /** Set together with `rotatedToId`; still authenticates for the overlap window. */
  rotatedAt: Date | null;
  rotatedToId: string | null;
  /** Set exactly when `state` is `revoked`. */
  revokedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.service_credentials` (UNIQUE `public_prefix`, UNIQUE secret digest).
 *
 * @example
 * const credentials = await em.find(IdentityServiceCredentialSchema, { serviceIdentityId }, { orderBy: { id: 'asc' } });
 */
export const IdentityServiceCredentialSchema = new EntitySchema<IdentityServiceCredentialRow>({
  name: IDENTITY_ENTITY_NAMES.serviceCredential,
  tableName: 'service_credentials',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    serviceIdentityId: referenceColumn(
      IDENTITY_ENTITY_NAMES.serviceIdentity,
      'service_identity_id',
      'service_credentials_service_identity_id_foreign',
    ),
    publicPrefix: textColumn('public_prefix'),
    secretDigestAlgorithm: enumColumn('secret_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    secretDigestEncoded: textColumn('secret_digest_encoded'),
    secretDigestKeyVersion: textColumn('secret_digest_key_version'),
    capabilities: textArrayColumn('capabilities'),
    state: enumColumn('state', SERVICE_CREDENTIAL_STATES),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    lastUsedAt: timestampColumn('last_used_at', { nullable: true }),
    rotatedAt: timestampColumn('rotated_at', { nullable: true }),
    rotatedToId: referenceColumn(
      IDENTITY_ENTITY_NAMES.serviceCredential,
      'rotated_to_id',
      'service_credentials_rotated_to_id_foreign',
      { nullable: true },
    ),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [
    { name: 'service_credentials_public_prefix_unique', properties: ['publicPrefix'] },
    {
      name: 'service_credentials_secret_digest_unique',
      properties: ['secretDigestAlgorithm', 'secretDigestEncoded', 'secretDigestKeyVersion'],
    },
  ],
  indexes: [{ name: 'service_credentials_service_identity_id_id_index', properties: ['serviceIdentityId', 'id'] }],
  checks: [
    check('service_credentials_public_prefix_check', `public_prefix ~ '${UUID_V7_PATTERN}'`),
    ...keyedDigestChecks('service_credentials', 'secret_digest'),
    capabilitiesCheck('service_credentials', 'capabilities'),
    check('service_credentials_expiry_check', 'expires_at > created_at'),
    check(
      'service_credentials_rotation_check',
      "(rotated_at is null) = (rotated_to_id is null) and (state <> 'rotated' or rotated_to_id is not null)",
    ),
    check('service_credentials_revocation_check', "(state = 'revoked') = (revoked_at is not null)"),
    check('service_credentials_version_check', 'version >= 0'),
  ],
});
