import { EntitySchema } from '@mikro-orm/core';
import {
  CREDENTIAL_STATES,
  IDENTITY_SCHEMA,
  type CredentialState,
  type WebAuthnTransport,
} from '../schema/identity-schema.values.js';
import {
  bigintColumn,
  booleanColumn,
  byteaColumn,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  textArrayColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.credentials`: a passkey (ES256 public key, counter, backup flags).
 *
 * @example
 * const passkey = await em.findOne(IdentityCredentialSchema, { webAuthnId });
 */
export interface IdentityCredentialRow {
  id: string;
  userId: string;
  /** Unpadded base64url of the raw credential ID (≤ 1024 bytes), globally unique. */
  webAuthnId: string;
  name: string;
  /** COSE-encoded public key. */
  publicKey: Buffer;
  /** Last signature counter (uint32). */
  signCount: number;
  /** Immutable after registration. */
  backupEligible: boolean;
  backedUp: boolean;
  /** ≤ 8 values of `usb | nfc | ble | internal | hybrid | smart-card`. */
  transports: WebAuthnTransport[];
  state: CredentialState;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.credentials` (UNIQUE `web_authn_id`).
 *
 * @example
 * const passkeys = await em.find(IdentityCredentialSchema, { userId }, { orderBy: { id: 'asc' } });
 */
export const IdentityCredentialSchema = new EntitySchema<IdentityCredentialRow>({
  name: IDENTITY_ENTITY_NAMES.credential,
  tableName: 'credentials',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'credentials_user_id_foreign'),
    webAuthnId: textColumn('web_authn_id'),
    name: textColumn('name'),
    publicKey: byteaColumn('public_key'),
    signCount: bigintColumn('sign_count', { default: 0 }),
    backupEligible: booleanColumn('backup_eligible'),
    backedUp: booleanColumn('backed_up'),
    transports: textArrayColumn('transports'),
    state: enumColumn('state', CREDENTIAL_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    lastUsedAt: timestampColumn('last_used_at', { nullable: true }),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [{ name: 'credentials_web_authn_id_unique', properties: ['webAuthnId'] }],
  indexes: [{ name: 'credentials_user_id_id_index', properties: ['userId', 'id'] }],
  checks: [
    check(
      'credentials_web_authn_id_check',
      "char_length(web_authn_id) >= 2 and char_length(web_authn_id) <= 1366 and web_authn_id ~ '^[A-Za-z0-9_-]+$'",
    ),
    check('credentials_name_check', 'char_length(name) >= 1 and char_length(name) <= 200'),
    check('credentials_public_key_check', 'octet_length(public_key) >= 1 and octet_length(public_key) <= 2048'),
    check('credentials_sign_count_check', 'sign_count >= 0 and sign_count <= 4294967295'),
    check('credentials_backup_state_check', 'backup_eligible or not backed_up'),
    check(
      'credentials_transports_check',
      "cardinality(transports) <= 8 and transports <@ array['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card']",
    ),
    check('credentials_version_check', 'version >= 0'),
  ],
});
