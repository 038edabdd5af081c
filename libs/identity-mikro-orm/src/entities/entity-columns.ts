import { ArrayType, BigIntType } from '@mikro-orm/core';

/*
 * Property builders shared by the identity entities. Each one states the exact PostgreSQL column
 * type and snake_case column name the initial migration creates, so the ORM metadata and the
 * database compare equal (`getUpdateSchemaSQL()` is empty).
 */

/** Names of the identity entities, for `m:1` targets and `em` calls by name. */
export const IDENTITY_ENTITY_NAMES = {
  environment: 'TesseraIdentityEnvironment',
  bootstrapReceipt: 'TesseraIdentityBootstrapReceipt',
  schemaMigration: 'TesseraIdentitySchemaMigration',
  user: 'TesseraIdentityUser',
  credential: 'TesseraIdentityCredential',
  session: 'TesseraIdentitySession',
  organization: 'TesseraIdentityOrganization',
  membership: 'TesseraIdentityMembership',
  invitation: 'TesseraIdentityInvitation',
  serviceIdentity: 'TesseraIdentityServiceIdentity',
  serviceCredential: 'TesseraIdentityServiceCredential',
  challenge: 'TesseraIdentityChallenge',
  recoveryCode: 'TesseraIdentityRecoveryCode',
  deviceGrant: 'TesseraIdentityDeviceGrant',
  deviceGrantDigestReservation: 'TesseraIdentityDeviceGrantDigestReservation',
  deviceTokenFamily: 'TesseraIdentityDeviceTokenFamily',
  deviceAccessToken: 'TesseraIdentityDeviceAccessToken',
  deviceRefreshToken: 'TesseraIdentityDeviceRefreshToken',
  deviceTokenCredentialReservation: 'TesseraIdentityDeviceTokenCredentialReservation',
  externalIdentity: 'TesseraIdentityExternalIdentity',
  externalReplayReceipt: 'TesseraIdentityExternalReplayReceipt',
  federationProviderControl: 'TesseraIdentityFederationProviderControl',
  federationTransaction: 'TesseraIdentityFederationTransaction',
  federationProviderRegistration: 'TesseraIdentityFederationProviderRegistration',
  auditEvent: 'TesseraIdentityAuditEvent',
  scimOperation: 'TesseraIdentityScimOperation',
  scimBatchOperation: 'TesseraIdentityScimBatchOperation',
  scimGroup: 'TesseraIdentityScimGroup',
  scimConnection: 'TesseraIdentityScimConnection',
  scimConnectionGroupRole: 'TesseraIdentityScimConnectionGroupRole',
  scimConnectionToken: 'TesseraIdentityScimConnectionToken',
  scimUser: 'TesseraIdentityScimUser',
  scimUserEmail: 'TesseraIdentityScimUserEmail',
  scimGroupMember: 'TesseraIdentityScimGroupMember',
  rateLimitBucket: 'TesseraIdentityRateLimitBucket',
} as const;

interface ColumnOptions {
  nullable?: boolean;
  primary?: boolean;
}

/** `uuid` column. */
export function uuidColumn(fieldName: string, options: ColumnOptions = {}) {
  return { type: 'uuid', columnType: 'uuid', fieldName, nullable: options.nullable ?? false, primary: options.primary };
}

/** `text` column. */
export function textColumn(fieldName: string, options: ColumnOptions = {}) {
  return { type: 'text', columnType: 'text', fieldName, nullable: options.nullable ?? false, primary: options.primary };
}

/** `text[]` column (one-dimensional, mapped to `string[]`). */
export function textArrayColumn(fieldName: string, options: ColumnOptions = {}) {
  return { type: ArrayType, columnType: 'text[]', fieldName, nullable: options.nullable ?? false };
}

/** `timestamptz` column mapped to `Date`. */
export function timestampColumn(fieldName: string, options: ColumnOptions = {}) {
  return { type: 'datetime', columnType: 'timestamptz', fieldName, nullable: options.nullable ?? false };
}

/** `integer` column, with an optional database default. */
export function integerColumn(fieldName: string, options: ColumnOptions & { default?: number } = {}) {
  return {
    type: 'integer',
    columnType: 'integer',
    fieldName,
    nullable: options.nullable ?? false,
    ...(options.default === undefined ? {} : { default: options.default }),
  };
}

/** `bigint` column mapped to `number` (for values up to 2^53). */
export function bigintColumn(fieldName: string, options: { default?: number } = {}) {
  return {
    type: new BigIntType('number'),
    columnType: 'bigint',
    fieldName,
    nullable: false,
    ...(options.default === undefined ? {} : { default: options.default }),
  };
}

/** `boolean` column, with an optional database default. */
export function booleanColumn(fieldName: string, options: ColumnOptions & { default?: boolean } = {}) {
  return {
    type: 'boolean',
    columnType: 'boolean',
    fieldName,
    nullable: options.nullable ?? false,
    primary: options.primary,
    ...(options.default === undefined ? {} : { default: options.default }),
  };
}

/** `bytea` column mapped to `Buffer`. */
export function byteaColumn(fieldName: string, options: ColumnOptions = {}) {
  return { type: 'blob', columnType: 'bytea', fieldName, nullable: options.nullable ?? false };
}

/**
 * `text` column restricted by a `col = ANY (ARRAY[...])` CHECK. MikroORM reads such a CHECK back as
 * enum items, so the column is declared as an enum with the same items in the same order.
 */
export function enumColumn(fieldName: string, items: readonly string[], options: ColumnOptions = {}) {
  return { enum: true as const, items: [...items], columnType: 'text', fieldName, nullable: options.nullable ?? false };
}

/** The `version` column of a mutable row: `integer not null default <initial>`, CHECKed ≥ initial. */
export function versionColumn(initial = 0) {
  return integerColumn('version', { default: initial });
}

/**
 * A foreign key exposed as the referenced id (`mapToPk`), with `NO ACTION` rules as in the
 * migration (MikroORM would otherwise assume `ON UPDATE CASCADE` and, for nullable keys,
 * `ON DELETE SET NULL`).
 */
export function referenceColumn(
  entity: string,
  fieldName: string,
  foreignKeyName: string,
  options: ColumnOptions = {},
) {
  return {
    kind: 'm:1' as const,
    entity,
    fieldName,
    foreignKeyName,
    mapToPk: true,
    nullable: options.nullable ?? false,
    primary: options.primary,
    deleteRule: 'no action',
    updateRule: 'no action',
  };
}

/** A CHECK constraint as the migration names and writes it. */
export function check(name: string, expression: string) {
  return { name, expression };
}

/**
 * CHECKs of a keyed digest triple `<digest>_{encoded,key_version}`, e.g. `token_digest` (its
 * `<digest>_algorithm` is an enum column).
 */
export function keyedDigestChecks(table: string, digest: string) {
  return [
    check(`${table}_${digest}_encoded_check`, `${digest}_encoded ~ '^[A-Za-z0-9_-]{43}$'`),
    check(`${table}_${digest}_key_version_check`, `${digest}_key_version ~ '^[A-Za-z0-9._:-]{1,64}$'`),
  ];
}

/** CHECK of a capability-name array column (non-NULL elements, each `^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`, ≤ 64). */
export function capabilitiesCheck(table: string, column: string) {
  return check(
    `${table}_${column}_check`,
    `array_ndims(${column}) = 1 and cardinality(${column}) <= 64 and array_position(${column}, null) is null and array_to_string(${column}, ',') ~ '^[a-z][a-z0-9_]*([.][a-z][a-z0-9_]*)+(,[a-z][a-z0-9_]*([.][a-z][a-z0-9_]*)+)*$'`,
  );
}

/** Regex of a canonical lower-case UUIDv7 (`identity-http.md` §1). */
export const UUID_V7_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';

/** Regex of unpadded base64url of 32 bytes. */
export const DIGEST_32_PATTERN = '^[A-Za-z0-9_-]{43}$';

/** Regex of a federation storage key (`oidc.`/`saml.` + 43 base64url chars). */
export const STORAGE_KEY_PATTERN = '^(oidc|saml)[.][A-Za-z0-9_-]{43}$';
