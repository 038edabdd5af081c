import { EntitySchema } from '@mikro-orm/core';
import {
  DEVICE_ACCESS_TOKEN_STATES,
  DEVICE_REFRESH_TOKEN_STATES,
  DEVICE_TOKEN_FAMILY_STATES,
  DEVICE_TOKEN_KINDS,
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  type DeviceAccessTokenState,
  type DeviceRefreshTokenState,
  type DeviceTokenFamilyState,
  type DeviceTokenKind,
  type KeyedDigestAlgorithm,
} from '../schema/identity-schema.values.js';
import {
  byteaColumn,
  capabilitiesCheck,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
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
 * One row of `tessera_identity.device_token_families`: what an exchanged device grant delegated,
 * with the membership snapshot rechecked at refresh and at access-token use.
 *
 * @example
 * const family = await em.findOne(IdentityDeviceTokenFamilySchema, { id: familyId });
 */
export interface IdentityDeviceTokenFamilyRow {
  id: string;
  /** One family per grant. */
  deviceGrantId: string;
  userId: string;
  organizationId: string;
  membershipId: string;
  membershipVersion: number;
  clientId: string;
  /** The approved scopes. */
  capabilities: string[];
  state: DeviceTokenFamilyState;
  /** Absolute expiry from the exchange; rotation never extends it. */
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** Set exactly when `state` is `revoked`. */
  revokedAt: Date | null;
  revokedReason: string | null;
  version: number;
}

/**
 * Entity of `tessera_identity.device_token_families` (UNIQUE `device_grant_id`).
 *
 * @example
 * const families = await em.find(IdentityDeviceTokenFamilySchema, { organizationId, userId, state: 'active' });
 */
export const IdentityDeviceTokenFamilySchema = new EntitySchema<IdentityDeviceTokenFamilyRow>({
  name: IDENTITY_ENTITY_NAMES.deviceTokenFamily,
  tableName: 'device_token_families',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    deviceGrantId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceGrant,
      'device_grant_id',
      'device_token_families_device_grant_id_foreign',
    ),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'device_token_families_user_id_foreign'),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'device_token_families_organization_id_foreign',
    ),
    membershipId: referenceColumn(
      IDENTITY_ENTITY_NAMES.membership,
      'membership_id',
      'device_token_families_membership_id_foreign',
    ),
    membershipVersion: integerColumn('membership_version'),
    clientId: textColumn('client_id'),
    capabilities: textArrayColumn('capabilities'),
    state: enumColumn('state', DEVICE_TOKEN_FAMILY_STATES),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    revokedReason: textColumn('revoked_reason', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [{ name: 'device_token_families_device_grant_id_unique', properties: ['deviceGrantId'] }],
  indexes: [
    { name: 'device_token_families_expires_at_index', properties: ['expiresAt'] },
    {
      name: 'device_token_families_active_tenant_index',
      expression:
        'create index "device_token_families_active_tenant_index" on "tessera_identity"."device_token_families" ("organization_id", "user_id") where state = \'active\'',
    },
  ],
  checks: [
    check('device_token_families_membership_version_check', 'membership_version >= 0'),
    check('device_token_families_client_id_check', "client_id ~ '^[!-~]{1,200}$'"),
    capabilitiesCheck('device_token_families', 'capabilities'),
    check('device_token_families_revocation_check', "(state = 'revoked') = (revoked_at is not null)"),
    check(
      'device_token_families_revoked_reason_check',
      'char_length(revoked_reason) >= 1 and char_length(revoked_reason) <= 200',
    ),
    check('device_token_families_expiry_check', 'expires_at > created_at'),
    check('device_token_families_version_check', 'version >= 0'),
  ],
});

/**
 * One row of `tessera_identity.device_access_tokens`.
 *
 * @example
 * const token = await em.findOne(IdentityDeviceAccessTokenSchema, { publicSelector: tokenId });
 */
export interface IdentityDeviceAccessTokenRow {
  id: string;
  familyId: string;
  /** The token id before the `.` of the bearer value; unique. */
  publicSelector: string;
  tokenDigestAlgorithm: KeyedDigestAlgorithm;
  tokenDigestEncoded: string;
  tokenDigestKeyVersion: string;
  state: DeviceAccessTokenState;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.device_access_tokens` (UNIQUE selector and digest).
 *
 * @example
 * const active = await em.find(IdentityDeviceAccessTokenSchema, { familyId, state: 'active' });
 */
export const IdentityDeviceAccessTokenSchema = new EntitySchema<IdentityDeviceAccessTokenRow>({
  name: IDENTITY_ENTITY_NAMES.deviceAccessToken,
  tableName: 'device_access_tokens',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    familyId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceTokenFamily,
      'family_id',
      'device_access_tokens_family_id_foreign',
    ),
    publicSelector: textColumn('public_selector'),
    tokenDigestAlgorithm: enumColumn('token_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    tokenDigestEncoded: textColumn('token_digest_encoded'),
    tokenDigestKeyVersion: textColumn('token_digest_key_version'),
    state: enumColumn('state', DEVICE_ACCESS_TOKEN_STATES),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [
    { name: 'device_access_tokens_public_selector_unique', properties: ['publicSelector'] },
    {
      name: 'device_access_tokens_token_digest_unique',
      properties: ['tokenDigestAlgorithm', 'tokenDigestEncoded', 'tokenDigestKeyVersion'],
    },
  ],
  indexes: [{ name: 'device_access_tokens_family_id_index', properties: ['familyId'] }],
  checks: [
    check('device_access_tokens_public_selector_check', `public_selector ~ '${UUID_V7_PATTERN}'`),
    ...keyedDigestChecks('device_access_tokens', 'token_digest'),
    check('device_access_tokens_expiry_check', 'expires_at > created_at'),
    check('device_access_tokens_version_check', 'version >= 0'),
  ],
});

/**
 * One row of `tessera_identity.device_refresh_tokens`: rotated once, replay of a rotated token
 * revokes the family.
 *
 * @example
 * const token = await em.findOne(IdentityDeviceRefreshTokenSchema, { publicSelector: tokenId });
 */
export interface IdentityDeviceRefreshTokenRow {
  id: string;
  familyId: string;
  /** The token id before the `.` of the refresh token; unique. */
  publicSelector: string;
  tokenDigestAlgorithm: KeyedDigestAlgorithm;
  tokenDigestEncoded: string;
  tokenDigestKeyVersion: string;
  state: DeviceRefreshTokenState;
  /** 0 at exchange, + 1 per rotation; unique within the family. */
  rotationCounter: number;
  /** Set together with `consumedAt` when rotated. */
  rotatedToId: string | null;
  consumedAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
  version: number;
  /** On a rotated parent inside its retry window: the successor pair sealed by the domain layer (opaque). */
  retrySealedSuccessor: Buffer | null;
  /** End of the retry window; set exactly with `retrySealedSuccessor`. */
  retryUntil: Date | null;
  /** The successor's access token while the sealed successor is kept. */
  retryAccessTokenId: string | null;
}

/**
 * Entity of `tessera_identity.device_refresh_tokens` (UNIQUE selector, digest and (family_id, rotation_counter)).
 *
 * @example
 * const active = await em.find(IdentityDeviceRefreshTokenSchema, { familyId, state: 'active' });
 */
export const IdentityDeviceRefreshTokenSchema = new EntitySchema<IdentityDeviceRefreshTokenRow>({
  name: IDENTITY_ENTITY_NAMES.deviceRefreshToken,
  tableName: 'device_refresh_tokens',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    familyId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceTokenFamily,
      'family_id',
      'device_refresh_tokens_family_id_foreign',
    ),
    publicSelector: textColumn('public_selector'),
    tokenDigestAlgorithm: enumColumn('token_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    tokenDigestEncoded: textColumn('token_digest_encoded'),
    tokenDigestKeyVersion: textColumn('token_digest_key_version'),
    state: enumColumn('state', DEVICE_REFRESH_TOKEN_STATES),
    rotationCounter: integerColumn('rotation_counter', { default: 0 }),
    rotatedToId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceRefreshToken,
      'rotated_to_id',
      'device_refresh_tokens_rotated_to_id_foreign',
      { nullable: true },
    ),
    consumedAt: timestampColumn('consumed_at', { nullable: true }),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
    retrySealedSuccessor: byteaColumn('retry_sealed_successor', { nullable: true }),
    retryUntil: timestampColumn('retry_until', { nullable: true }),
    retryAccessTokenId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceAccessToken,
      'retry_access_token_id',
      'device_refresh_tokens_retry_access_token_id_foreign',
      { nullable: true },
    ),
  },
  indexes: [
    {
      name: 'device_refresh_tokens_retry_until_index',
      expression:
        'create index "device_refresh_tokens_retry_until_index" on "tessera_identity"."device_refresh_tokens" ("retry_until") where retry_until is not null',
    },
  ],
  uniques: [
    { name: 'device_refresh_tokens_public_selector_unique', properties: ['publicSelector'] },
    {
      name: 'device_refresh_tokens_token_digest_unique',
      properties: ['tokenDigestAlgorithm', 'tokenDigestEncoded', 'tokenDigestKeyVersion'],
    },
    { name: 'device_refresh_tokens_family_id_rotation_counter_unique', properties: ['familyId', 'rotationCounter'] },
  ],
  checks: [
    check('device_refresh_tokens_public_selector_check', `public_selector ~ '${UUID_V7_PATTERN}'`),
    ...keyedDigestChecks('device_refresh_tokens', 'token_digest'),
    check('device_refresh_tokens_rotation_counter_check', 'rotation_counter >= 0'),
    check(
      'device_refresh_tokens_rotation_check',
      "(rotated_to_id is null) = (consumed_at is null) and (state <> 'rotated' or rotated_to_id is not null)",
    ),
    check('device_refresh_tokens_expiry_check', 'expires_at > created_at'),
    check('device_refresh_tokens_version_check', 'version >= 0'),
    check(
      'device_refresh_tokens_retry_check',
      "(retry_sealed_successor is null) = (retry_until is null) and (retry_until is null) = (retry_access_token_id is null) and (retry_until is null or state = 'rotated')",
    ),
    check(
      'device_refresh_tokens_retry_sealed_successor_check',
      'octet_length(retry_sealed_successor) >= 1 and octet_length(retry_sealed_successor) <= 4096',
    ),
  ],
});

/**
 * One row of `tessera_identity.device_token_credential_reservations`: access and refresh tokens
 * share one selector and digest namespace, so no value is ever reused across the two kinds.
 *
 * @example
 * await em.insert(IdentityDeviceTokenCredentialReservationSchema, { kind: 'access', tokenId, publicSelector: tokenId, digestAlgorithm: 'hmac-sha256', digestEncoded, digestKeyVersion: '1', createdAt: now });
 */
export interface IdentityDeviceTokenCredentialReservationRow {
  kind: DeviceTokenKind;
  tokenId: string;
  publicSelector: string;
  digestAlgorithm: KeyedDigestAlgorithm;
  digestEncoded: string;
  digestKeyVersion: string;
  createdAt: Date;
}

/**
 * Entity of `tessera_identity.device_token_credential_reservations` (PK (kind, token_id), UNIQUE selector and digest).
 *
 * @example
 * const taken = await em.count(IdentityDeviceTokenCredentialReservationSchema, { publicSelector });
 */
export const IdentityDeviceTokenCredentialReservationSchema =
  new EntitySchema<IdentityDeviceTokenCredentialReservationRow>({
    name: IDENTITY_ENTITY_NAMES.deviceTokenCredentialReservation,
    tableName: 'device_token_credential_reservations',
    schema: IDENTITY_SCHEMA,
    properties: {
      kind: { ...enumColumn('kind', DEVICE_TOKEN_KINDS), primary: true },
      tokenId: uuidColumn('token_id', { primary: true }),
      publicSelector: textColumn('public_selector'),
      digestAlgorithm: enumColumn('digest_algorithm', KEYED_DIGEST_ALGORITHMS),
      digestEncoded: textColumn('digest_encoded'),
      digestKeyVersion: textColumn('digest_key_version'),
      createdAt: timestampColumn('created_at'),
    },
    uniques: [
      { name: 'device_token_credential_reservations_public_selector_unique', properties: ['publicSelector'] },
      {
        name: 'device_token_credential_reservations_digest_unique',
        properties: ['digestAlgorithm', 'digestEncoded', 'digestKeyVersion'],
      },
    ],
    checks: [
      check('device_token_credential_reservations_public_selector_check', `public_selector ~ '${UUID_V7_PATTERN}'`),
      ...keyedDigestChecks('device_token_credential_reservations', 'digest'),
    ],
  });
