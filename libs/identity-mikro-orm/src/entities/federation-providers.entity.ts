import { EntitySchema } from '@mikro-orm/core';
import {
  FEDERATION_PROVIDER_KINDS,
  FEDERATION_PROVIDER_STATES,
  IDENTITY_SCHEMA,
  type FederationProviderKind,
  type FederationProviderState,
} from '../schema/identity-schema.values.js';
import {
  byteaColumn,
  check,
  DIGEST_32_PATTERN,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  referenceColumn,
  STORAGE_KEY_PATTERN,
  textColumn,
  timestampColumn,
  versionColumn,
} from './entity-columns.js';

const PROVIDER_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

/**
 * One row of `tessera_identity.federation_provider_controls`: the kill switch and session epoch of
 * one (organization, provider).
 *
 * @example
 * const control = await em.findOne(IdentityFederationProviderControlSchema, { organizationId, providerId });
 */
export interface IdentityFederationProviderControlRow {
  organizationId: string;
  providerId: string;
  /** Immutable. */
  kind: FederationProviderKind;
  /** Immutable; `<kind>.` + 43 base64url chars; unique. */
  storageKey: string;
  state: FederationProviderState;
  /** + 1 on every disable; sessions carrying an older epoch are invalid. */
  sessionEpoch: number;
  /** Disabled only: equal to `updatedAt`. */
  disabledAt: Date | null;
  /** Disabled only: 1..200 chars. */
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.federation_provider_controls` (PK (organization_id, provider_id), UNIQUE `storage_key`).
 *
 * @example
 * const control = await em.findOne(IdentityFederationProviderControlSchema, { storageKey });
 */
export const IdentityFederationProviderControlSchema = new EntitySchema<IdentityFederationProviderControlRow>({
  name: IDENTITY_ENTITY_NAMES.federationProviderControl,
  tableName: 'federation_provider_controls',
  schema: IDENTITY_SCHEMA,
  properties: {
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'federation_provider_controls_organization_id_foreign',
      { primary: true },
    ),
    providerId: textColumn('provider_id', { primary: true }),
    kind: enumColumn('kind', FEDERATION_PROVIDER_KINDS),
    storageKey: textColumn('storage_key'),
    state: enumColumn('state', FEDERATION_PROVIDER_STATES),
    sessionEpoch: integerColumn('session_epoch', { default: 0 }),
    disabledAt: timestampColumn('disabled_at', { nullable: true }),
    disabledReason: textColumn('disabled_reason', { nullable: true }),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [{ name: 'federation_provider_controls_storage_key_unique', properties: ['storageKey'] }],
  checks: [
    check('federation_provider_controls_provider_id_check', `provider_id ~ '${PROVIDER_ID_PATTERN}'`),
    check(
      'federation_provider_controls_storage_key_check',
      `storage_key ~ '${STORAGE_KEY_PATTERN}' and strpos(storage_key, kind || '.') = 1`,
    ),
    check('federation_provider_controls_session_epoch_check', 'session_epoch >= 0'),
    check(
      'federation_provider_controls_state_metadata_check',
      "(state = 'enabled' and disabled_at is null and disabled_reason is null) or (state = 'disabled' and disabled_at = updated_at and char_length(disabled_reason) >= 1 and char_length(disabled_reason) <= 200)",
    ),
    check('federation_provider_controls_version_check', 'version >= 0'),
  ],
});

/**
 * One row of `tessera_identity.federation_transactions`: server-side OIDC/SAML state keyed by the
 * digest of the state cookie's selector, deleted exactly once at the callback.
 *
 * @example
 * const deleted = await em.nativeDelete(IdentityFederationTransactionSchema, { selectorDigest });
 */
export interface IdentityFederationTransactionRow {
  /** Unpadded base64url SHA-256 of the state selector. */
  selectorDigest: string;
  organizationId: string;
  providerId: string;
  kind: FederationProviderKind;
  /** Lease taken at start: storage key, provider session epoch and control version. */
  storageKey: string;
  providerSessionEpoch: number;
  providerVersion: number;
  /** OIDC only: the encrypted PKCE verifier. */
  pkceVerifierCiphertext: Buffer | null;
  /** SAML only: the encrypted AuthnRequest id. */
  requestIdCiphertext: Buffer | null;
  /** OIDC only: base64url SHA-256 of the nonce. */
  nonceDigest: string | null;
  expiresAt: Date;
  createdAt: Date;
  /** The signed-in session that started federation to link its user; the row goes with it. */
  initiatorSessionId: string | null;
}

/**
 * Entity of `tessera_identity.federation_transactions` (PK `selector_digest`).
 *
 * @example
 * await em.insert(IdentityFederationTransactionSchema, { selectorDigest, organizationId, providerId, kind: 'oidc', storageKey, ... });
 */
export const IdentityFederationTransactionSchema = new EntitySchema<IdentityFederationTransactionRow>({
  name: IDENTITY_ENTITY_NAMES.federationTransaction,
  tableName: 'federation_transactions',
  schema: IDENTITY_SCHEMA,
  properties: {
    selectorDigest: textColumn('selector_digest', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'federation_transactions_organization_id_foreign',
    ),
    providerId: textColumn('provider_id'),
    kind: enumColumn('kind', FEDERATION_PROVIDER_KINDS),
    storageKey: textColumn('storage_key'),
    providerSessionEpoch: integerColumn('provider_session_epoch'),
    providerVersion: integerColumn('provider_version'),
    pkceVerifierCiphertext: byteaColumn('pkce_verifier_ciphertext', { nullable: true }),
    requestIdCiphertext: byteaColumn('request_id_ciphertext', { nullable: true }),
    nonceDigest: textColumn('nonce_digest', { nullable: true }),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    initiatorSessionId: {
      ...referenceColumn(
        IDENTITY_ENTITY_NAMES.session,
        'initiator_session_id',
        'federation_transactions_initiator_session_id_foreign',
        { nullable: true },
      ),
      deleteRule: 'cascade',
    },
  },
  indexes: [{ name: 'federation_transactions_expires_at_index', properties: ['expiresAt'] }],
  checks: [
    check('federation_transactions_selector_digest_check', `selector_digest ~ '${DIGEST_32_PATTERN}'`),
    check('federation_transactions_provider_id_check', `provider_id ~ '${PROVIDER_ID_PATTERN}'`),
    check(
      'federation_transactions_storage_key_check',
      `storage_key ~ '${STORAGE_KEY_PATTERN}' and strpos(storage_key, kind || '.') = 1`,
    ),
    check('federation_transactions_provider_session_epoch_check', 'provider_session_epoch >= 0'),
    check('federation_transactions_provider_version_check', 'provider_version >= 0'),
    check('federation_transactions_nonce_digest_check', `nonce_digest ~ '${DIGEST_32_PATTERN}'`),
    check(
      'federation_transactions_protocol_check',
      "(kind = 'oidc' and pkce_verifier_ciphertext is not null and nonce_digest is not null and request_id_ciphertext is null) or (kind = 'saml' and request_id_ciphertext is not null and pkce_verifier_ciphertext is null and nonce_digest is null)",
    ),
    check('federation_transactions_expiry_check', 'expires_at > created_at'),
  ],
});
