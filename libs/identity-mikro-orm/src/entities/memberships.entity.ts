import { EntitySchema } from '@mikro-orm/core';
import {
  IDENTITY_SCHEMA,
  MEMBERSHIP_ROLES,
  MEMBERSHIP_STATES,
  type MembershipRole,
  type MembershipState,
} from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.memberships`: one per (organization, user).
 *
 * @example
 * const owners = await em.find(IdentityMembershipSchema, { organizationId, role: 'owner', state: 'active' });
 */
export interface IdentityMembershipRow {
  id: string;
  organizationId: string;
  userId: string;
  role: MembershipRole;
  state: MembershipState;
  createdAt: Date;
  updatedAt: Date;
  /** Set exactly when `state` is `removed`. */
  removedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.memberships` (UNIQUE (organization_id, user_id)).
 *
 * @example
 * await em.insert(IdentityMembershipSchema, { id, organizationId, userId, role: 'owner', state: 'active', createdAt: now, updatedAt: now, removedAt: null, version: 0 });
 */
export const IdentityMembershipSchema = new EntitySchema<IdentityMembershipRow>({
  name: IDENTITY_ENTITY_NAMES.membership,
  tableName: 'memberships',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'memberships_organization_id_foreign',
    ),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'memberships_user_id_foreign'),
    role: enumColumn('role', MEMBERSHIP_ROLES),
    state: enumColumn('state', MEMBERSHIP_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    removedAt: timestampColumn('removed_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [{ name: 'memberships_organization_id_user_id_unique', properties: ['organizationId', 'userId'] }],
  indexes: [
    { name: 'memberships_user_id_index', properties: ['userId'] },
    {
      name: 'memberships_active_owners_index',
      expression:
        'create index "memberships_active_owners_index" on "tessera_identity"."memberships" ("organization_id") where role = \'owner\' and state = \'active\'',
    },
  ],
  checks: [
    check('memberships_removal_check', "(state = 'removed') = (removed_at is not null)"),
    check('memberships_version_check', 'version >= 0'),
  ],
});
