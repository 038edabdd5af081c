import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  RECOVERY_CODE_STATES,
  type KeyedDigestAlgorithm,
  type RecoveryCodeState,
} from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  keyedDigestChecks,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.recovery_codes`: the keyed digest of a code's secret (found by it), and
 * for a code of the earlier format its public selector.
 *
 * @example
 * const code = await em.findOne(IdentityRecoveryCodeSchema, { secretDigestEncoded, secretDigestKeyVersion });
 */
export interface IdentityRecoveryCodeRow {
  id: string;
  userId: string;
  /** 0, 1, 2, … per replacement. */
  generation: number;
  /** The 11-char base64url selector of a code of the earlier `<selector>.<secret>` format; unique. Null for codes found by digest. */
  publicSelector: string | null;
  secretDigestAlgorithm: KeyedDigestAlgorithm;
  secretDigestEncoded: string;
  secretDigestKeyVersion: string;
  state: RecoveryCodeState;
  createdAt: Date;
  updatedAt: Date;
  /** Set exactly when `state` is `consumed`. */
  consumedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.recovery_codes` (UNIQUE selector and secret digest, index (user_id, generation, id)).
 *
 * @example
 * const codes = await em.find(IdentityRecoveryCodeSchema, { userId, generation }, { orderBy: { id: 'asc' } });
 */
export const IdentityRecoveryCodeSchema = new EntitySchema<IdentityRecoveryCodeRow>({
  name: IDENTITY_ENTITY_NAMES.recoveryCode,
  tableName: 'recovery_codes',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'recovery_codes_user_id_foreign'),
    generation: integerColumn('generation'),
    publicSelector: textColumn('public_selector', { nullable: true }),
    secretDigestAlgorithm: enumColumn('secret_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    secretDigestEncoded: textColumn('secret_digest_encoded'),
    secretDigestKeyVersion: textColumn('secret_digest_key_version'),
    state: enumColumn('state', RECOVERY_CODE_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    consumedAt: timestampColumn('consumed_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [
    { name: 'recovery_codes_public_selector_unique', properties: ['publicSelector'] },
    {
      name: 'recovery_codes_secret_digest_unique',
      properties: ['secretDigestAlgorithm', 'secretDigestEncoded', 'secretDigestKeyVersion'],
    },
  ],
  indexes: [{ name: 'recovery_codes_user_id_generation_id_index', properties: ['userId', 'generation', 'id'] }],
  checks: [
    check('recovery_codes_generation_check', 'generation >= 0'),
    check('recovery_codes_public_selector_check', "public_selector ~ '^[A-Za-z0-9_-]{11}$'"),
    ...keyedDigestChecks('recovery_codes', 'secret_digest'),
    check('recovery_codes_consumption_check', "(state = 'consumed') = (consumed_at is not null)"),
    check('recovery_codes_version_check', 'version >= 0'),
  ],
});
