import type { MigrationObject } from '@tessera/database';
import { Migration20261122000000IdentityInitial } from './migration-20261122000000-identity-initial.js';
import {
  IDENTITY_MIGRATION_LEDGER_NAME,
  Migration20261122060000IdentityMigrationLedger,
} from './migration-20261122060000-identity-migration-ledger.js';
import {
  IDENTITY_DEVICE_RETRY_MIGRATION_NAME,
  Migration20261125000000IdentityDeviceRetry,
} from './migration-20261125000000-identity-device-retry.js';
import {
  IDENTITY_FEDERATION_MIGRATION_NAME,
  Migration20261126000000IdentityFederation,
} from './migration-20261126000000-identity-federation.js';
import {
  IDENTITY_SCIM_MIGRATION_NAME,
  Migration20261127000000IdentityScim,
} from './migration-20261127000000-identity-scim.js';
import {
  IDENTITY_SESSION_NOTIFY_MIGRATION_NAME,
  Migration20261128000000IdentitySessionNotify,
} from './migration-20261128000000-identity-session-notify.js';
import {
  IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME,
  Migration20261129000000IdentityRecoveryCodeDigest,
} from './migration-20261129000000-identity-recovery-code-digest.js';

/**
 * The migrations of `@tessera/identity-mikro-orm`, oldest first, for `migrations.list` of
 * `@tessera/database` (names are namespaced so they never collide with other libs' or the app's).
 * Record them in schema `tessera_identity` by passing `schema: IDENTITY_SCHEMA` and
 * `tableName: IDENTITY_MIGRATIONS_TABLE` next to the list, or mix them into the app's list: either
 * way each one also records itself in the identity ledger `tessera_identity.schema_migrations`,
 * which the store checks at start (identity-model.md §9.7). Every migration added here ends its
 * up() with `recordIdentityMigration(this, name)` (see `identity-migration-ledger.ts`).
 *
 * @example
 * await openDatabase({
 *   entities: [...identityEntities],
 *   migrations: { list: [...identityMigrations], schema: 'tessera_identity', tableName: 'mikro_orm_migrations' },
 * });
 */
export const identityMigrations: readonly MigrationObject[] = Object.freeze([
  { name: 'tessera_identity_20261122000000_initial', class: Migration20261122000000IdentityInitial },
  { name: IDENTITY_MIGRATION_LEDGER_NAME, class: Migration20261122060000IdentityMigrationLedger },
  { name: IDENTITY_DEVICE_RETRY_MIGRATION_NAME, class: Migration20261125000000IdentityDeviceRetry },
  { name: IDENTITY_FEDERATION_MIGRATION_NAME, class: Migration20261126000000IdentityFederation },
  { name: IDENTITY_SCIM_MIGRATION_NAME, class: Migration20261127000000IdentityScim },
  { name: IDENTITY_SESSION_NOTIFY_MIGRATION_NAME, class: Migration20261128000000IdentitySessionNotify },
  { name: IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME, class: Migration20261129000000IdentityRecoveryCodeDigest },
]);
