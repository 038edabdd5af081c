import type { Migration } from '@tessera/database';
import { IDENTITY_MIGRATION_MODULE, identityMigrationChecksum } from '../schema/identity-migration-checksum.js';

/*
 * The ledger rule (identity-model.md §9.7): every identity migration after the initial one ends its
 * up() with `recordIdentityMigration(this, NAME)`, NAME being its name in `identityMigrations`, and
 * its down() with `forgetIdentityMigration(this, NAME)`. The ledger row is then written in the
 * migration's own transaction, and its checksum is the one `identityMigrationChecksums` computes
 * from the migration class, since ledger statements are left out of every checksum. Nothing may
 * follow the ledger statement: it covers only the statements added before it.
 */

const MIGRATION_NAME = /^[a-z][a-z0-9_]{0,199}$/;
const CHECKSUM = /^[0-9a-f]{64}$/;

/**
 * The literal `insert` of one identity ledger row into `tessera_identity.schema_migrations`
 * (`applied_at` = the statement's time). Name and checksum are validated, so they need no quoting.
 *
 * @example
 * this.addSql(identityLedgerInsert('tessera_identity_20261122000000_initial', INITIAL_CHECKSUM));
 */
export function identityLedgerInsert(name: string, checksum: string): string {
  if (!MIGRATION_NAME.test(name)) throw new TypeError(`invalid identity migration name ${JSON.stringify(name)}`);
  if (!CHECKSUM.test(checksum)) throw new TypeError(`invalid checksum for identity migration ${name}`);
  return `insert into "tessera_identity"."schema_migrations" ("module", "version", "checksum", "applied_at") values ('${IDENTITY_MIGRATION_MODULE}', '${name}', '${checksum}', statement_timestamp());`;
}

/**
 * Ends an identity migration's `up()`: adds the ledger row recording `name` with the checksum of
 * every statement the migration added so far.
 *
 * @example
 * override async up(): Promise<void> {
 *   this.addSql('create index "users_state_index" on "tessera_identity"."users" ("state");');
 *   recordIdentityMigration(this, 'tessera_identity_20270101000000_users_state_index');
 * }
 */
export function recordIdentityMigration(migration: Migration, name: string): void {
  migration.addSql(identityLedgerInsert(name, identityMigrationChecksum(migration.getQueries())));
}

/**
 * Ends an identity migration's `down()`: deletes the ledger row recording `name`.
 *
 * @example
 * override async down(): Promise<void> {
 *   this.addSql('drop index "tessera_identity"."users_state_index";');
 *   forgetIdentityMigration(this, 'tessera_identity_20270101000000_users_state_index');
 * }
 */
export function forgetIdentityMigration(migration: Migration, name: string): void {
  if (!MIGRATION_NAME.test(name)) throw new TypeError(`invalid identity migration name ${JSON.stringify(name)}`);
  migration.addSql(
    `delete from "tessera_identity"."schema_migrations" where "module" = '${IDENTITY_MIGRATION_MODULE}' and "version" = '${name}';`,
  );
}
