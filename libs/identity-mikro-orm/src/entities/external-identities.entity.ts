import { EntitySchema } from '@mikro-orm/core';
import {
  EXTERNAL_IDENTITY_STATES,
  IDENTITY_SCHEMA,
  type ExternalIdentityState,
} from '../schema/identity-schema.values.js';
import {
  check,
  DIGEST_32_PATTERN,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  STORAGE_KEY_PATTERN,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.external_identities`: a federation link, keyed by (provider storage
 * key, subject) and never by email.
 *
 * @example
 * const link = await em.findOne(IdentityExternalIdentitySchema, { provider: storageKey, subject: sub });
 */
export interface IdentityExternalIdentityRow {
  id: string;
  userId: string;
  /** The tenant of the provider. */
  organizationId: string;
  /** The provider's storage key (`oidc.`/`saml.` + 43 base64url chars). */
  provider: string;
  subject: string;
  state: ExternalIdentityState;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.external_identities` (UNIQUE (provider, subject)).
 *
 * @example
 * await em.insert(IdentityExternalIdentitySchema, { id, userId, organizationId, provider, subject, state: 'active', createdAt: now, updatedAt: now, version: 0 });
 */
export const IdentityExternalIdentitySchema = new EntitySchema<IdentityExternalIdentityRow>({
  name: IDENTITY_ENTITY_NAMES.externalIdentity,
  tableName: 'external_identities',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'external_identities_user_id_foreign'),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'external_identities_organization_id_foreign',
    ),
    provider: textColumn('provider'),
    subject: textColumn('subject'),
    state: enumColumn('state', EXTERNAL_IDENTITY_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [{ name: 'external_identities_provider_subject_unique', properties: ['provider', 'subject'] }],
  indexes: [{ name: 'external_identities_user_id_index', properties: ['userId'] }],
  checks: [
    check('external_identities_provider_check', `provider ~ '${STORAGE_KEY_PATTERN}'`),
    check('external_identities_subject_check', 'char_length(subject) >= 1 and char_length(subject) <= 1024'),
    check('external_identities_version_check', 'version >= 0'),
  ],
});

/**
 * One row of `tessera_identity.external_replay_receipts`: an ID token or assertion already used.
 *
 * @example
 * await em.insert(IdentityExternalReplayReceiptSchema, { id, provider, assertionDigest, expiresAt, createdAt: now });
 */
export interface IdentityExternalReplayReceiptRow {
  id: string;
  /** The provider's storage key. */
  provider: string;
  /** Unpadded base64url SHA-256 of the ID token / assertion identifier. */
  assertionDigest: string;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * Entity of `tessera_identity.external_replay_receipts` (UNIQUE (provider, assertion_digest)).
 *
 * @example
 * await em.insert(IdentityExternalReplayReceiptSchema, { id, provider, assertionDigest, expiresAt, createdAt: now });
 */
export const IdentityExternalReplayReceiptSchema = new EntitySchema<IdentityExternalReplayReceiptRow>({
  name: IDENTITY_ENTITY_NAMES.externalReplayReceipt,
  tableName: 'external_replay_receipts',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    provider: textColumn('provider'),
    assertionDigest: textColumn('assertion_digest'),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
  },
  uniques: [
    { name: 'external_replay_receipts_provider_assertion_digest_unique', properties: ['provider', 'assertionDigest'] },
  ],
  indexes: [{ name: 'external_replay_receipts_expires_at_index', properties: ['expiresAt'] }],
  checks: [
    check('external_replay_receipts_provider_check', `provider ~ '${STORAGE_KEY_PATTERN}'`),
    check('external_replay_receipts_assertion_digest_check', `assertion_digest ~ '${DIGEST_32_PATTERN}'`),
    check('external_replay_receipts_expiry_check', 'expires_at > created_at'),
  ],
});
