import type { MigrationObject } from '@mikro-orm/core';
import { Migration20250601000000CoreSession } from './migrations/migration-20250601000000-core-session.js';

/**
 * The migrations of `@tessera/core`, oldest first, for the caller's `migrations.migrationsList`
 * (names are namespaced so they never collide with the application's).
 *
 * @example
 * migrations: { migrationsList: [...coreMigrations, ...appMigrations] }
 */
export const coreMigrations: readonly MigrationObject[] = Object.freeze([
  { name: 'tessera_core_20250601000000_core_session', class: Migration20250601000000CoreSession },
]);
