import { EntitySchema } from '@mikro-orm/core';
import { IDENTITY_SCHEMA } from '../schema/identity-schema.values.js';
import { SCIM_USER_STATES, SCIM_USER_TEXT_COLUMNS, type ScimUserState } from '../schema/identity-scim.values.js';
import {
  booleanColumn,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  referenceColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.scim_users`: a user provisioned by one tenant (organization +
 * provider key), pointing at the identity user it created. Versions start at 1 (ETag `W/"1"`).
 *
 * @example
 * const user = await em.findOne(IdentityScimUserSchema, { id, organizationId, provider, state: 'active' });
 */
export interface IdentityScimUserRow {
  id: string;
  organizationId: string;
  /** The SCIM provider key `<providerName>:<organizationId>`. */
  provider: string;
  userId: string;
  userName: string;
  externalId: string | null;
  displayName: string | null;
  nickName: string | null;
  title: string | null;
  userType: string | null;
  preferredLanguage: string | null;
  locale: string | null;
  timezone: string | null;
  nameFormatted: string | null;
  nameFamilyName: string | null;
  nameGivenName: string | null;
  nameMiddleName: string | null;
  nameHonorificPrefix: string | null;
  nameHonorificSuffix: string | null;
  enterpriseEmployeeNumber: string | null;
  enterpriseCostCenter: string | null;
  enterpriseOrganization: string | null;
  enterpriseDivision: string | null;
  enterpriseDepartment: string | null;
  active: boolean;
  state: ScimUserState;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The optional text attributes as entity properties (`display_name` → `displayName`). */
const textAttributes = Object.fromEntries(
  SCIM_USER_TEXT_COLUMNS.map((column) => [camel(column), textColumn(column, { nullable: true })]),
);

/** An index of active rows of the tenant, as the migration writes it. */
function activeIndex(name: string, columns: string, unique = false) {
  return {
    name,
    expression: `create ${unique ? 'unique ' : ''}index "${name}" on "tessera_identity"."scim_users" (${columns}) where state = 'active'`,
  };
}

/**
 * Entity of `tessera_identity.scim_users`: active users are unique per tenant by
 * `lower(user_name)` and by `external_id`, and per organization by identity user.
 *
 * @example
 * const users = await em.find(IdentityScimUserSchema, { organizationId, provider, state: 'active' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
 */
export const IdentityScimUserSchema = new EntitySchema<IdentityScimUserRow>({
  name: IDENTITY_ENTITY_NAMES.scimUser,
  tableName: 'scim_users',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'scim_users_organization_id_foreign',
    ),
    provider: textColumn('provider'),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'scim_users_user_id_foreign'),
    userName: textColumn('user_name'),
    externalId: textColumn('external_id', { nullable: true }),
    ...(textAttributes as Record<(typeof SCIM_USER_TEXT_COLUMNS)[number], ReturnType<typeof textColumn>>),
    active: booleanColumn('active'),
    state: enumColumn('state', SCIM_USER_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(1),
  } as never,
  uniques: [
    activeIndex('scim_users_active_user_name_unique', 'organization_id, provider, lower(user_name)', true),
    {
      name: 'scim_users_active_external_id_unique',
      expression:
        'create unique index "scim_users_active_external_id_unique" on "tessera_identity"."scim_users" (organization_id, provider, external_id) where state = \'active\' and external_id is not null',
    },
    activeIndex('scim_users_active_user_id_unique', 'organization_id, user_id', true),
  ],
  indexes: [
    activeIndex(
      'scim_users_active_user_name_pattern_index',
      'organization_id, provider, lower(user_name) text_pattern_ops',
    ),
    activeIndex('scim_users_active_created_index', 'organization_id, provider, created_at, id'),
    activeIndex('scim_users_active_display_name_index', 'organization_id, provider, lower(display_name)'),
  ],
  checks: [
    check('scim_users_provider_check', 'char_length(provider) >= 1 and char_length(provider) <= 300'),
    check('scim_users_user_name_check', 'char_length(user_name) >= 1 and char_length(user_name) <= 1024'),
    check('scim_users_external_id_check', 'char_length(external_id) >= 1 and char_length(external_id) <= 1024'),
    ...SCIM_USER_TEXT_COLUMNS.map((column) =>
      check(`scim_users_${column}_check`, `char_length(${column}) >= 1 and char_length(${column}) <= 1024`),
    ),
    check('scim_users_version_check', 'version >= 1'),
  ],
});

/**
 * One value of a SCIM user's `emails` (`tessera_identity.scim_user_emails`), in order by
 * `position`; deleted with its user row.
 *
 * @example
 * const emails = await em.find(IdentityScimUserEmailSchema, { scimUserId }, { orderBy: { position: 'asc' } });
 */
export interface IdentityScimUserEmailRow {
  scimUserId: string;
  /** 0..19. */
  position: number;
  organizationId: string;
  provider: string;
  value: string;
  type: string | null;
  isPrimary: boolean;
}

/**
 * Entity of `tessera_identity.scim_user_emails` (PK (scim_user_id, position)).
 *
 * @example
 * await em.insert(IdentityScimUserEmailSchema, { scimUserId, position: 0, organizationId, provider, value: 'a@example.com', type: 'work', isPrimary: true });
 */
export const IdentityScimUserEmailSchema = new EntitySchema<IdentityScimUserEmailRow>({
  name: IDENTITY_ENTITY_NAMES.scimUserEmail,
  tableName: 'scim_user_emails',
  schema: IDENTITY_SCHEMA,
  properties: {
    scimUserId: {
      ...referenceColumn(IDENTITY_ENTITY_NAMES.scimUser, 'scim_user_id', 'scim_user_emails_scim_user_id_foreign', {
        primary: true,
      }),
      deleteRule: 'cascade',
    },
    position: { ...integerColumn('position'), primary: true },
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'scim_user_emails_organization_id_foreign',
    ),
    provider: textColumn('provider'),
    value: textColumn('value'),
    type: textColumn('type', { nullable: true }),
    isPrimary: booleanColumn('is_primary'),
  },
  indexes: [
    {
      name: 'scim_user_emails_value_index',
      expression:
        'create index "scim_user_emails_value_index" on "tessera_identity"."scim_user_emails" (organization_id, provider, lower(value))',
    },
  ],
  checks: [
    check('scim_user_emails_position_check', 'position >= 0 and position <= 19'),
    check('scim_user_emails_provider_check', 'char_length(provider) >= 1 and char_length(provider) <= 300'),
    check('scim_user_emails_value_check', 'char_length(value) >= 3 and char_length(value) <= 320'),
    check('scim_user_emails_type_check', 'char_length(type) >= 1 and char_length(type) <= 64'),
  ],
});

/**
 * One member of a SCIM group (`tessera_identity.scim_group_members`).
 *
 * @example
 * const members = await em.find(IdentityScimGroupMemberSchema, { groupId });
 */
export interface IdentityScimGroupMemberRow {
  groupId: string;
  scimUserId: string;
  organizationId: string;
  provider: string;
  addedAt: Date;
}

/**
 * Entity of `tessera_identity.scim_group_members` (PK (group_id, scim_user_id), index on the member).
 *
 * @example
 * await em.insert(IdentityScimGroupMemberSchema, { groupId, scimUserId, organizationId, provider, addedAt: now });
 */
export const IdentityScimGroupMemberSchema = new EntitySchema<IdentityScimGroupMemberRow>({
  name: IDENTITY_ENTITY_NAMES.scimGroupMember,
  tableName: 'scim_group_members',
  schema: IDENTITY_SCHEMA,
  properties: {
    groupId: referenceColumn(IDENTITY_ENTITY_NAMES.scimGroup, 'group_id', 'scim_group_members_group_id_foreign', {
      primary: true,
    }),
    scimUserId: referenceColumn(
      IDENTITY_ENTITY_NAMES.scimUser,
      'scim_user_id',
      'scim_group_members_scim_user_id_foreign',
      { primary: true },
    ),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'scim_group_members_organization_id_foreign',
    ),
    provider: textColumn('provider'),
    addedAt: timestampColumn('added_at'),
  },
  indexes: [{ name: 'scim_group_members_scim_user_id_index', properties: ['scimUserId'] }],
  checks: [check('scim_group_members_provider_check', 'char_length(provider) >= 1 and char_length(provider) <= 300')],
});
