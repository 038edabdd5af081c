import { EntitySchema } from '@mikro-orm/core';
import { IDENTITY_SCHEMA, ORGANIZATION_STATES, type OrganizationState } from '../schema/identity-schema.values.js';
import {
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.organizations`.
 *
 * @example
 * const organization = await em.findOne(IdentityOrganizationSchema, { slug: 'acme' });
 */
export interface IdentityOrganizationRow {
  id: string;
  name: string;
  /** `^[a-z0-9][a-z0-9-]{1,62}$`, unique. */
  slug: string;
  state: OrganizationState;
  createdAt: Date;
  updatedAt: Date;
  /** Set exactly when `state` is `deleted` (soft delete). */
  deletedAt: Date | null;
  version: number;
}

/**
 * Entity of `tessera_identity.organizations`.
 *
 * @example
 * await em.insert(IdentityOrganizationSchema, { id, name: 'Acme', slug: 'acme', state: 'active', createdAt: now, updatedAt: now, deletedAt: null, version: 0 });
 */
export const IdentityOrganizationSchema = new EntitySchema<IdentityOrganizationRow>({
  name: IDENTITY_ENTITY_NAMES.organization,
  tableName: 'organizations',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    name: textColumn('name'),
    slug: textColumn('slug'),
    state: enumColumn('state', ORGANIZATION_STATES),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    deletedAt: timestampColumn('deleted_at', { nullable: true }),
    version: versionColumn(),
  },
  uniques: [{ name: 'organizations_slug_unique', properties: ['slug'] }],
  checks: [
    check('organizations_name_check', 'char_length(name) >= 1 and char_length(name) <= 200'),
    check('organizations_slug_check', "slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'"),
    check('organizations_deletion_check', "(state = 'deleted') = (deleted_at is not null)"),
    check('organizations_version_check', 'version >= 0'),
  ],
});
