import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  type KeyedDigestAlgorithm,
} from '../schema/identity-schema.values.js';
import {
  SCIM_CONNECTION_STATES,
  SCIM_GRANTED_ROLES,
  SCIM_GROUP_MATCH_KINDS,
  SCIM_TOKEN_STATES,
  type ScimConnectionStateValue,
  type ScimGrantedRole,
  type ScimGroupMatchKind,
  type ScimTokenStateValue,
} from '../schema/identity-scim.values.js';
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
 * One row of `tessera_identity.scim_connections`: a SCIM connection an organization manages
 * itself (issue 15); one `active` connection per (organization, providerName).
 *
 * @example
 * const connection = await em.findOne(IdentityScimConnectionSchema, { id, organizationId });
 */
export interface IdentityScimConnectionRow {
  id: string;
  organizationId: string;
  /** 1..64 of `[a-z0-9_-]`. */
  providerName: string;
  state: ScimConnectionStateValue;
  createdAt: Date;
  updatedAt: Date;
  /** Set iff `revoked`. */
  revokedAt: Date | null;
  tokenIssuedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.scim_connections`.
 *
 * @example
 * const connections = await em.find(IdentityScimConnectionSchema, { organizationId }, { orderBy: { createdAt: 'asc' } });
 */
export const IdentityScimConnectionSchema = new EntitySchema<IdentityScimConnectionRow>({
  name: IDENTITY_ENTITY_NAMES.scimConnection,
  tableName: 'scim_connections',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'scim_connections_organization_id_foreign',
    ),
    providerName: textColumn('provider_name'),
    state: enumColumn('state', SCIM_CONNECTION_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    tokenIssuedAt: timestampColumn('token_issued_at'),
    version: versionColumn(),
  },
  uniques: [
    {
      name: 'scim_connections_active_provider_name_unique',
      expression:
        'create unique index "scim_connections_active_provider_name_unique" on "tessera_identity"."scim_connections" (organization_id, provider_name) where state = \'active\'',
    },
  ],
  checks: [
    check('scim_connections_provider_name_check', "provider_name ~ '^[a-z0-9_-]{1,64}$'"),
    check('scim_connections_revoked_check', "(state = 'revoked') = (revoked_at is not null)"),
    check('scim_connections_version_check', 'version >= 0'),
  ],
});

/**
 * One group-to-role rule of a connection (`tessera_identity.scim_connection_group_roles`), in
 * declaration order by `position`.
 *
 * @example
 * const rules = await em.find(IdentityScimConnectionGroupRoleSchema, { connectionId }, { orderBy: { position: 'asc' } });
 */
export interface IdentityScimConnectionGroupRoleRow {
  connectionId: string;
  /** 0..99. */
  position: number;
  matchKind: ScimGroupMatchKind;
  /** 1..1024 chars. */
  matchValue: string;
  role: ScimGrantedRole;
}

/**
 * Entity of `tessera_identity.scim_connection_group_roles` (PK (connection_id, position)).
 *
 * @example
 * await em.insert(IdentityScimConnectionGroupRoleSchema, { connectionId, position: 0, matchKind: 'display_name', matchValue: 'Admins', role: 'admin' });
 */
export const IdentityScimConnectionGroupRoleSchema = new EntitySchema<IdentityScimConnectionGroupRoleRow>({
  name: IDENTITY_ENTITY_NAMES.scimConnectionGroupRole,
  tableName: 'scim_connection_group_roles',
  schema: IDENTITY_SCHEMA,
  properties: {
    connectionId: referenceColumn(
      IDENTITY_ENTITY_NAMES.scimConnection,
      'connection_id',
      'scim_connection_group_roles_connection_id_foreign',
      { primary: true },
    ),
    position: { ...integerColumn('position'), primary: true },
    matchKind: enumColumn('match_kind', SCIM_GROUP_MATCH_KINDS),
    matchValue: textColumn('match_value'),
    role: enumColumn('role', SCIM_GRANTED_ROLES),
  },
  checks: [
    check('scim_connection_group_roles_position_check', 'position >= 0 and position <= 99'),
    check(
      'scim_connection_group_roles_match_value_check',
      'char_length(match_value) >= 1 and char_length(match_value) <= 1024',
    ),
  ],
});

/**
 * One bearer token of a connection (`tessera_identity.scim_connection_tokens`): its id is the
 * public selector, only the keyed digest of the secret is stored; one `active` token per connection.
 *
 * @example
 * const token = await em.findOne(IdentityScimConnectionTokenSchema, { id: selector });
 */
export interface IdentityScimConnectionTokenRow {
  id: string;
  connectionId: string;
  digestAlgorithm: KeyedDigestAlgorithm;
  digestEncoded: string;
  digestKeyVersion: string;
  state: ScimTokenStateValue;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.scim_connection_tokens`.
 *
 * @example
 * await em.insert(IdentityScimConnectionTokenSchema, { id, connectionId, digestAlgorithm: 'hmac-sha256', digestEncoded, digestKeyVersion: 'v1', state: 'active', createdAt: now, rotatedAt: null, revokedAt: null, version: 0 });
 */
export const IdentityScimConnectionTokenSchema = new EntitySchema<IdentityScimConnectionTokenRow>({
  name: IDENTITY_ENTITY_NAMES.scimConnectionToken,
  tableName: 'scim_connection_tokens',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    connectionId: referenceColumn(
      IDENTITY_ENTITY_NAMES.scimConnection,
      'connection_id',
      'scim_connection_tokens_connection_id_foreign',
    ),
    digestAlgorithm: enumColumn('digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    digestEncoded: textColumn('digest_encoded'),
    digestKeyVersion: textColumn('digest_key_version'),
    state: enumColumn('state', SCIM_TOKEN_STATES),
    createdAt: timestampColumn('created_at'),
    rotatedAt: timestampColumn('rotated_at', { nullable: true }),
    revokedAt: timestampColumn('revoked_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [
    { name: 'scim_connection_tokens_digest_encoded_unique', properties: ['digestEncoded'] },
    {
      name: 'scim_connection_tokens_active_unique',
      expression:
        'create unique index "scim_connection_tokens_active_unique" on "tessera_identity"."scim_connection_tokens" (connection_id) where state = \'active\'',
    },
  ],
  checks: [
    ...keyedDigestChecks('scim_connection_tokens', 'digest'),
    check(
      'scim_connection_tokens_rotated_check',
      "state = 'active' or rotated_at is not null or revoked_at is not null",
    ),
    check('scim_connection_tokens_revoked_check', "(state = 'revoked') = (revoked_at is not null)"),
    check('scim_connection_tokens_version_check', 'version >= 0'),
  ],
});
