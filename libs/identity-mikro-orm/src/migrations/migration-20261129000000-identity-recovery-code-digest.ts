import { Migration } from '@tessera/database';
import { forgetIdentityMigration, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME = 'tessera_identity_20261129000000_recovery_code_digest';

/*
 * Issue 17: recovery codes are 26 Crockford base32 characters without a selector, found by their
 * keyed digest through the existing unique digest index. Codes of the earlier
 * `<selector>.<secret>` format keep their selector and keep working until replaced.
 */
const UP: readonly string[] = [
  `alter table "tessera_identity"."recovery_codes" alter column "public_selector" drop not null`,
];

/* Back to selectors only: the codes without one cannot be presented to the earlier release. */
const DOWN: readonly string[] = [
  `delete from "tessera_identity"."recovery_codes" where "public_selector" is null`,
  `alter table "tessera_identity"."recovery_codes" alter column "public_selector" set not null`,
];

/**
 * Recovery codes found by digest (issue 17): `public_selector` becomes optional.
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME, class: Migration20261129000000IdentityRecoveryCodeDigest }] }
 */
export class Migration20261129000000IdentityRecoveryCodeDigest extends Migration {
  override async up(): Promise<void> {
    for (const statement of UP) this.addSql(statement);
    recordIdentityMigration(this, IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME);
  }

  override async down(): Promise<void> {
    for (const statement of DOWN) this.addSql(statement);
    forgetIdentityMigration(this, IDENTITY_RECOVERY_CODE_DIGEST_MIGRATION_NAME);
  }
}
