import { EntitySchema } from '@mikro-orm/core';
import { IDENTITY_SCHEMA } from '../schema/identity-schema.values.js';
import { check, IDENTITY_ENTITY_NAMES, textColumn, timestampColumn } from './entity-columns.js';

/**
 * One row of `tessera_identity.schema_migrations`: the SHA-256 of an applied migration's SQL
 * (`identityMigrationChecksum`, ledger statements left out), written by the migration itself and
 * compared at start to refuse drift and a schema behind the build (`identity-model.md` §9.7).
 *
 * @example
 * const applied = await em.find(IdentitySchemaMigrationSchema, { module: 'identity' });
 */
export interface IdentitySchemaMigrationRow {
  module: string;
  /** The migration name, e.g. `tessera_identity_20261122000000_initial`. */
  version: string;
  /** Lower-case hex SHA-256. */
  checksum: string;
  appliedAt: Date;
}

/**
 * Entity of `tessera_identity.schema_migrations` (PK (module, version)).
 *
 * @example
 * await em.insert(IdentitySchemaMigrationSchema, { module: 'identity', version: name, checksum, appliedAt: now });
 */
export const IdentitySchemaMigrationSchema = new EntitySchema<IdentitySchemaMigrationRow>({
  name: IDENTITY_ENTITY_NAMES.schemaMigration,
  tableName: 'schema_migrations',
  schema: IDENTITY_SCHEMA,
  properties: {
    module: textColumn('module', { primary: true }),
    version: textColumn('version', { primary: true }),
    checksum: textColumn('checksum'),
    appliedAt: timestampColumn('applied_at'),
  },
  checks: [
    check('schema_migrations_module_check', "module ~ '^[a-z][a-z0-9_-]{0,62}$'"),
    check('schema_migrations_version_check', 'char_length(version) >= 1 and char_length(version) <= 200'),
    check('schema_migrations_checksum_check', "checksum ~ '^[0-9a-f]{64}$'"),
  ],
});
