import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  INVITATION_STATES,
  KEYED_DIGEST_ALGORITHMS,
  MEMBERSHIP_ROLES,
  type InvitationState,
  type KeyedDigestAlgorithm,
  type MembershipRole,
} from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  keyedDigestChecks,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.invitations`: the token is stored as a keyed digest only.
 *
 * @example
 * const pending = await em.find(IdentityInvitationSchema, { organizationId, state: 'pending' });
 */
export interface IdentityInvitationRow {
  id: string;
  organizationId: string;
  email: string;
  role: MembershipRole;
  state: InvitationState;
  tokenDigestAlgorithm: KeyedDigestAlgorithm;
  tokenDigestEncoded: string;
  tokenDigestKeyVersion: string;
  /** `null` for invitations without an issuing user (refused under `admin_only`). */
  invitedByUserId: string | null;
  /** Set exactly when `state` is `accepted`, with `acceptedAt`. */
  acceptedByUserId: string | null;
  acceptedAt: Date | null;
  /** Set exactly when `state` is `revoked`. */
  revokedAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.invitations`: UNIQUE token digest and one pending invitation per
 * (organization, lower(email)).
 *
 * @example
 * const invitation = await em.findOne(IdentityInvitationSchema, { tokenDigestAlgorithm: 'hmac-sha256', tokenDigestEncoded, tokenDigestKeyVersion });
 */
export const IdentityInvitationSchema = new EntitySchema<IdentityInvitationRow>({
  name: IDENTITY_ENTITY_NAMES.invitation,
  tableName: 'invitations',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'invitations_organization_id_foreign',
    ),
    email: textColumn('email'),
    role: enumColumn('role', MEMBERSHIP_ROLES),
    state: enumColumn('state', INVITATION_STATES),
    tokenDigestAlgorithm: enumColumn('token_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    tokenDigestEncoded: textColumn('token_digest_encoded'),
    tokenDigestKeyVersion: textColumn('token_digest_key_version'),
    invitedByUserId: referenceColumn(
      IDENTITY_ENTITY_NAMES.user,
      'invited_by_user_id',
      'invitations_invited_by_user_id_foreign',
      { nullable: true },
    ),
    acceptedByUserId: referenceColumn(
      IDENTITY_ENTITY_NAMES.user,
      'accepted_by_user_id',
      'invitations_accepted_by_user_id_foreign',
      { nullable: true },
    ),
    acceptedAt: timestampColumn('accepted_at', { nullable: true }),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    expiresAt: timestampColumn('expires_at'),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
  },
  uniques: [
    {
      name: 'invitations_token_digest_unique',
      properties: ['tokenDigestAlgorithm', 'tokenDigestEncoded', 'tokenDigestKeyVersion'],
    },
    {
      name: 'invitations_pending_email_unique',
      expression:
        'create unique index "invitations_pending_email_unique" on "tessera_identity"."invitations" (organization_id, lower(email)) where state = \'pending\'',
    },
  ],
  indexes: [{ name: 'invitations_organization_id_id_index', properties: ['organizationId', 'id'] }],
  checks: [
    check(
      'invitations_email_check',
      "char_length(email) >= 3 and char_length(email) <= 320 and strpos(email, '@') > 0",
    ),
    ...keyedDigestChecks('invitations', 'token_digest'),
    check(
      'invitations_acceptance_check',
      "(state = 'accepted' and accepted_at is not null and accepted_by_user_id is not null) or (state <> 'accepted' and accepted_at is null and accepted_by_user_id is null)",
    ),
    check('invitations_revocation_check', "(state = 'revoked') = (revoked_at is not null)"),
    check('invitations_expiry_check', 'expires_at > created_at'),
    check('invitations_version_check', 'version >= 0'),
  ],
});
