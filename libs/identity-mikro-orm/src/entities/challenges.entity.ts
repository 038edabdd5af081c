import { EntitySchema } from '@mikro-orm/core';
import {
  CHALLENGE_DIGEST_ALGORITHMS,
  CHALLENGE_PURPOSES,
  CHALLENGE_STATES,
  IDENTITY_SCHEMA,
  type ChallengeDigestAlgorithm,
  type ChallengePurpose,
  type ChallengeState,
} from '../schema/identity-schema.values.js';
import {
  check,
  DIGEST_32_PATTERN,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.challenges`: a WebAuthn ceremony, or (purpose `account_recovery`)
 * an administrative recovery ticket.
 *
 * @example
 * const ceremony = await em.findOne(IdentityChallengeSchema, { id: ceremonyId });
 */
export interface IdentityChallengeRow {
  id: string;
  purpose: ChallengePurpose;
  state: ChallengeState;
  /** `sha256` of the WebAuthn challenge, or `hmac-sha256` (with a key version) of a ticket secret. */
  challengeDigestAlgorithm: ChallengeDigestAlgorithm;
  challengeDigestEncoded: string;
  challengeDigestKeyVersion: string | null;
  /** SHA-256 of the ceremony cookie bytes (base64url). */
  bindingDigest: string | null;
  /** SHA-256 of purpose ‖ registration source ‖ RP ID (base64url). */
  payloadDigest: string | null;
  /** Tickets only: keyed digest binding the ticket to its user. */
  userBindingDigest: string | null;
  userId: string | null;
  organizationId: string | null;
  expiresAt: Date;
  /** Tickets only: set once the notification was delivered. */
  activatedAt: Date | null;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.challenges` (UNIQUE challenge digest, partial index on pending expiry).
 *
 * @example
 * await em.insert(IdentityChallengeSchema, { id, purpose: 'webauthn_authentication', state: 'pending', challengeDigestAlgorithm: 'sha256', challengeDigestEncoded, ... });
 */
export const IdentityChallengeSchema = new EntitySchema<IdentityChallengeRow>({
  name: IDENTITY_ENTITY_NAMES.challenge,
  tableName: 'challenges',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    purpose: enumColumn('purpose', CHALLENGE_PURPOSES),
    state: enumColumn('state', CHALLENGE_STATES),
    challengeDigestAlgorithm: enumColumn('challenge_digest_algorithm', CHALLENGE_DIGEST_ALGORITHMS),
    challengeDigestEncoded: textColumn('challenge_digest_encoded'),
    challengeDigestKeyVersion: textColumn('challenge_digest_key_version', { nullable: true }),
    bindingDigest: textColumn('binding_digest', { nullable: true }),
    payloadDigest: textColumn('payload_digest', { nullable: true }),
    userBindingDigest: textColumn('user_binding_digest', { nullable: true }),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'challenges_user_id_foreign', { nullable: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'challenges_organization_id_foreign',
      { nullable: true },
    ),
    expiresAt: timestampColumn('expires_at'),
    activatedAt: timestampColumn('activated_at', { nullable: true }),
    failureReason: textColumn('failure_reason', { nullable: true }),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [{ name: 'challenges_challenge_digest_unique', properties: ['challengeDigestEncoded'] }],
  indexes: [
    {
      name: 'challenges_pending_expires_at_index',
      expression:
        'create index "challenges_pending_expires_at_index" on "tessera_identity"."challenges" ("expires_at") where state = \'pending\'',
    },
  ],
  checks: [
    check('challenges_challenge_digest_encoded_check', `challenge_digest_encoded ~ '${DIGEST_32_PATTERN}'`),
    check(
      'challenges_challenge_digest_key_check',
      "(challenge_digest_algorithm = 'sha256' and challenge_digest_key_version is null) or (challenge_digest_algorithm = 'hmac-sha256' and challenge_digest_key_version ~ '^[A-Za-z0-9._:-]{1,64}$')",
    ),
    check('challenges_binding_digest_check', `binding_digest ~ '${DIGEST_32_PATTERN}'`),
    check('challenges_payload_digest_check', `payload_digest ~ '${DIGEST_32_PATTERN}'`),
    check('challenges_user_binding_digest_check', `user_binding_digest ~ '${DIGEST_32_PATTERN}'`),
    check(
      'challenges_ticket_fields_check',
      "purpose = 'account_recovery' or (activated_at is null and user_binding_digest is null)",
    ),
    check(
      'challenges_ticket_binding_check',
      "purpose <> 'account_recovery' or (user_id is not null and user_binding_digest is not null and challenge_digest_algorithm = 'hmac-sha256')",
    ),
    check('challenges_failure_reason_check', 'char_length(failure_reason) >= 1 and char_length(failure_reason) <= 200'),
    check('challenges_expiry_check', 'expires_at > created_at'),
    check('challenges_version_check', 'version >= 0'),
  ],
});
