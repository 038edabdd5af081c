import { Migration } from '@tessera/database';
import { forgetIdentityMigration, identityLedgerInsert, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_MIGRATION_LEDGER_NAME = 'tessera_identity_20261122060000_migration_ledger';

/** The released initial migration, whose up() predates the ledger rule and records nothing. */
const INITIAL_NAME = 'tessera_identity_20261122000000_initial';
/** Its checksum (identityMigrationChecksums), frozen with it. */
const INITIAL_CHECKSUM = 'b22faff9d8534caab2328f82ac875d637fb63b5c868d2002ece5c31cbafa4ed0';

/**
 * Starts the identity migration ledger `tessera_identity.schema_migrations` (identity-model.md
 * §9.7): records the initial migration, then itself. Both statements are ledger statements, so this
 * migration's checksum is the SHA-256 of no SQL at all. A database migrated by an earlier build
 * gets it at its next migration run; `down()` forgets both rows again.
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_MIGRATION_LEDGER_NAME, class: Migration20261122060000IdentityMigrationLedger }] }
 */
export class Migration20261122060000IdentityMigrationLedger extends Migration {
  override async up(): Promise<void> {
    this.addSql(identityLedgerInsert(INITIAL_NAME, INITIAL_CHECKSUM));
    recordIdentityMigration(this, IDENTITY_MIGRATION_LEDGER_NAME);
  }

  override async down(): Promise<void> {
    forgetIdentityMigration(this, IDENTITY_MIGRATION_LEDGER_NAME);
    forgetIdentityMigration(this, INITIAL_NAME);
  }
}
