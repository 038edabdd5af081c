import type { MigrationObject } from '@tessera/database';
import { Migration20261122000000IdentityInitial } from './migration-20261122000000-identity-initial.js';

/**
 * The migrations of `@tessera/identity-mikro-orm`, oldest first, for `migrations.list` of
 * `@tessera/database` (names are namespaced so they never collide with other libs' or the app's).
 * Record them in schema `tessera_identity` by passing `schema: IDENTITY_SCHEMA` and
 * `tableName: IDENTITY_MIGRATIONS_TABLE` next to the list.
 *
 * @example
 * await openDatabase({
 *   entities: [...identityEntities],
 *   migrations: { list: [...identityMigrations], schema: 'tessera_identity', tableName: 'mikro_orm_migrations' },
 * });
 */
export const identityMigrations: readonly MigrationObject[] = Object.freeze([
  { name: 'tessera_identity_20261122000000_initial', class: Migration20261122000000IdentityInitial },
]);
