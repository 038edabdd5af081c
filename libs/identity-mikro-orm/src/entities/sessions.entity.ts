import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  SESSION_ASSURANCES,
  SESSION_AUTHENTICATION_METHODS,
  SESSION_STATES,
  type KeyedDigestAlgorithm,
  type SessionAssurance,
  type SessionAuthenticationMethod,
  type SessionState,
} from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  keyedDigestChecks,
  referenceColumn,
  STORAGE_KEY_PATTERN,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.sessions`: digests only, never the token or the CSRF token.
 *
 * @example
 * const session = await em.findOne(IdentitySessionSchema, { id: sessionId });
 */
export interface IdentitySessionRow {
  id: string;
  /** Id of the first session of the rotation family. */
  familyId: string;
  userId: string;
  tokenDigestAlgorithm: KeyedDigestAlgorithm;
  tokenDigestEncoded: string;
  tokenDigestKeyVersion: string;
  csrfDigestAlgorithm: KeyedDigestAlgorithm;
  csrfDigestEncoded: string;
  csrfDigestKeyVersion: string | null;
  state: SessionState;
  assurance: SessionAssurance;
  authenticationMethod: SessionAuthenticationMethod;
  /** Federation provenance: all four set exactly for `oidc`/`saml` sessions. */
  federationOrganizationId: string | null;
  /** The provider's storage key. */
  federationProviderKey: string | null;
  federationProviderSessionEpoch: number | null;
  externalIdentityId: string | null;
  userSessionEpoch: number;
  rotationCounter: number;
  rotatedToId: string | null;
  label: string | null;
  platform: string | null;
  authenticatedAt: Date;
  lastUsedAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.sessions`: method ↔ assurance, federation all-or-none and
 * `idle_expires_at ≤ absolute_expires_at` are CHECKed; token and CSRF digests are unique.
 *
 * @example
 * const active = await em.find(IdentitySessionSchema, { userId, state: 'active' }, { orderBy: { id: 'asc' } });
 */
export const IdentitySessionSchema = new EntitySchema<IdentitySessionRow>({
  name: IDENTITY_ENTITY_NAMES.session,
  tableName: 'sessions',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    familyId: uuidColumn('family_id'),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'sessions_user_id_foreign'),
    tokenDigestAlgorithm: enumColumn('token_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    tokenDigestEncoded: textColumn('token_digest_encoded'),
    tokenDigestKeyVersion: textColumn('token_digest_key_version'),
    csrfDigestAlgorithm: enumColumn('csrf_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    csrfDigestEncoded: textColumn('csrf_digest_encoded'),
    csrfDigestKeyVersion: textColumn('csrf_digest_key_version', { nullable: true }),
    state: enumColumn('state', SESSION_STATES),
    assurance: enumColumn('assurance', SESSION_ASSURANCES),
    authenticationMethod: enumColumn('authentication_method', SESSION_AUTHENTICATION_METHODS),
    federationOrganizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'federation_organization_id',
      'sessions_federation_organization_id_foreign',
      { nullable: true },
    ),
    federationProviderKey: textColumn('federation_provider_key', { nullable: true }),
    federationProviderSessionEpoch: integerColumn('federation_provider_session_epoch', { nullable: true }),
    externalIdentityId: referenceColumn(
      IDENTITY_ENTITY_NAMES.externalIdentity,
      'external_identity_id',
      'sessions_external_identity_id_foreign',
      { nullable: true },
    ),
    userSessionEpoch: integerColumn('user_session_epoch'),
    rotationCounter: integerColumn('rotation_counter', { default: 0 }),
    rotatedToId: referenceColumn(IDENTITY_ENTITY_NAMES.session, 'rotated_to_id', 'sessions_rotated_to_id_foreign', {
      nullable: true,
    }),
    label: textColumn('label', { nullable: true }),
    platform: textColumn('platform', { nullable: true }),
    authenticatedAt: timestampColumn('authenticated_at'),
    lastUsedAt: timestampColumn('last_used_at'),
    idleExpiresAt: timestampColumn('idle_expires_at'),
    absoluteExpiresAt: timestampColumn('absolute_expires_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    revokedReason: textColumn('revoked_reason', { nullable: true }),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [
    {
      name: 'sessions_token_digest_unique',
      properties: ['tokenDigestAlgorithm', 'tokenDigestEncoded', 'tokenDigestKeyVersion'],
    },
    {
      name: 'sessions_csrf_digest_unique',
      expression:
        'create unique index "sessions_csrf_digest_unique" on "tessera_identity"."sessions" (csrf_digest_algorithm, csrf_digest_encoded, coalesce(csrf_digest_key_version, \'\'))',
    },
  ],
  indexes: [
    { name: 'sessions_user_id_id_index', properties: ['userId', 'id'] },
    { name: 'sessions_family_id_id_index', properties: ['familyId', 'id'] },
    { name: 'sessions_external_identity_id_index', properties: ['externalIdentityId'] },
    {
      name: 'sessions_active_federated_index',
      expression:
        'create index "sessions_active_federated_index" on "tessera_identity"."sessions" ("federation_organization_id", "user_id") where state = \'active\' and federation_organization_id is not null',
    },
  ],
  checks: [
    ...keyedDigestChecks('sessions', 'token_digest'),
    ...keyedDigestChecks('sessions', 'csrf_digest'),
    check(
      'sessions_method_assurance_check',
      "(authentication_method = 'passkey' and assurance = any (array['passkey', 'step_up'])) or (authentication_method = any (array['recovery_code', 'administrative_recovery', 'bootstrap', 'invitation']) and assurance = 'recovery') or (authentication_method = any (array['oidc', 'saml']) and assurance = 'session')",
    ),
    check(
      'sessions_federation_provenance_check',
      'num_nonnulls(federation_organization_id, federation_provider_key, federation_provider_session_epoch, external_identity_id) = any (array[0, 4])',
    ),
    check(
      'sessions_federation_method_check',
      "(authentication_method = any (array['oidc', 'saml'])) = (federation_organization_id is not null)",
    ),
    check('sessions_federation_provider_key_check', `federation_provider_key ~ '${STORAGE_KEY_PATTERN}'`),
    check('sessions_federation_provider_session_epoch_check', 'federation_provider_session_epoch >= 0'),
    check('sessions_user_session_epoch_check', 'user_session_epoch >= 0'),
    check('sessions_rotation_counter_check', 'rotation_counter >= 0'),
    check('sessions_rotation_check', "state <> 'rotated' or rotated_to_id is not null"),
    check('sessions_label_check', 'char_length(label) >= 1 and char_length(label) <= 200'),
    check('sessions_platform_check', 'char_length(platform) >= 1 and char_length(platform) <= 200'),
    check('sessions_idle_expiry_check', 'idle_expires_at <= absolute_expires_at'),
    check('sessions_revoked_reason_check', 'char_length(revoked_reason) >= 1 and char_length(revoked_reason) <= 200'),
    check('sessions_version_check', 'version >= 0'),
  ],
});
