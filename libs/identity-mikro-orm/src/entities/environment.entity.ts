import { EntitySchema } from '@mikro-orm/core';
import {
  BOOTSTRAP_DIGEST_ALGORITHMS,
  IDENTITY_ENVIRONMENTS,
  IDENTITY_SCHEMA,
  type BootstrapDigestAlgorithm,
  type IdentityEnvironment,
} from '../schema/identity-schema.values.js';
import {
  booleanColumn,
  check,
  DIGEST_32_PATTERN,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  textColumn,
  timestampColumn,
} from './entity-columns.js';

/**
 * The singleton environment marker of `tessera_identity.environment` (`id` is always `true`),
 * written once by provisioning and never overwritten.
 *
 * @example
 * const marker = await em.findOne(IdentityEnvironmentSchema, { id: true });
 */
export interface IdentityEnvironmentRow {
  id: boolean;
  environment: IdentityEnvironment;
  /** `^[a-z][a-z0-9_-]{2,63}$`, containing the environment name. */
  namespace: string;
  createdAt: Date;
}

/**
 * Entity of `tessera_identity.environment`.
 *
 * @example
 * await em.insert(IdentityEnvironmentSchema, { id: true, environment: 'test', namespace: 'tessera_test', createdAt: now });
 */
export const IdentityEnvironmentSchema = new EntitySchema<IdentityEnvironmentRow>({
  name: IDENTITY_ENTITY_NAMES.environment,
  tableName: 'environment',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: booleanColumn('id', { primary: true, default: true }),
    environment: enumColumn('environment', IDENTITY_ENVIRONMENTS),
    namespace: textColumn('namespace'),
    createdAt: timestampColumn('created_at'),
  },
  checks: [
    check('environment_id_check', 'id = true'),
    check(
      'environment_namespace_check',
      "namespace ~ '^[a-z][a-z0-9_-]{2,63}$' and strpos(namespace, environment) > 0",
    ),
  ],
});

/**
 * The singleton bootstrap receipt of `tessera_identity.bootstrap_receipts`: its presence means
 * the installation was bootstrapped.
 *
 * @example
 * const bootstrapped = (await em.count(IdentityBootstrapReceiptSchema, {})) > 0;
 */
export interface IdentityBootstrapReceiptRow {
  id: boolean;
  digestAlgorithm: BootstrapDigestAlgorithm;
  /** Unpadded base64url SHA-256 of the bootstrap secret. */
  digestEncoded: string;
  /** The user and organization the bootstrap created. */
  userId: string;
  organizationId: string;
  consumedAt: Date;
}

/**
 * Entity of `tessera_identity.bootstrap_receipts` (UNIQUE `digest_encoded`).
 *
 * @example
 * await em.insert(IdentityBootstrapReceiptSchema, { id: true, digestAlgorithm: 'sha256', digestEncoded, userId, organizationId, consumedAt: now });
 */
export const IdentityBootstrapReceiptSchema = new EntitySchema<IdentityBootstrapReceiptRow>({
  name: IDENTITY_ENTITY_NAMES.bootstrapReceipt,
  tableName: 'bootstrap_receipts',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: booleanColumn('id', { primary: true, default: true }),
    digestAlgorithm: enumColumn('digest_algorithm', BOOTSTRAP_DIGEST_ALGORITHMS),
    digestEncoded: textColumn('digest_encoded'),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'bootstrap_receipts_user_id_foreign'),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'bootstrap_receipts_organization_id_foreign',
    ),
    consumedAt: timestampColumn('consumed_at'),
  },
  uniques: [{ name: 'bootstrap_receipts_digest_encoded_unique', properties: ['digestEncoded'] }],
  checks: [
    check('bootstrap_receipts_id_check', 'id = true'),
    check('bootstrap_receipts_digest_encoded_check', `digest_encoded ~ '${DIGEST_32_PATTERN}'`),
  ],
});
