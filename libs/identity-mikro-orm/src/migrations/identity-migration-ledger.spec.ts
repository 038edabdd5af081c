import { describe, expect, it } from '@jest/globals';
import { Migration } from '@tessera/database';
import { identityMigrationChecksum } from '../schema/identity-migration-checksum.js';
import { forgetIdentityMigration, identityLedgerInsert, recordIdentityMigration } from './identity-migration-ledger.js';

const NAME = 'tessera_identity_20270101000000_users_state_index';
const INDEX = 'create index "users_state_index" on "tessera_identity"."users" ("state");';

class UsersStateIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(INDEX);
    recordIdentityMigration(this, NAME);
  }

  override async down(): Promise<void> {
    this.addSql('drop index "tessera_identity"."users_state_index";');
    forgetIdentityMigration(this, NAME);
  }
}

describe('identity migration ledger statements', () => {
  it('records a migration with the checksum of the statements it added before', async () => {
    const migration = new UsersStateIndex(undefined as never, undefined as never);
    await migration.up();
    const checksum = identityMigrationChecksum([INDEX]);
    expect(migration.getQueries()).toEqual([
      INDEX,
      `insert into "tessera_identity"."schema_migrations" ("module", "version", "checksum", "applied_at") values ('identity', '${NAME}', '${checksum}', statement_timestamp());`,
    ]);
    expect(identityMigrationChecksum(migration.getQueries())).toBe(checksum);
  });

  it('forgets the row on down()', async () => {
    const migration = new UsersStateIndex(undefined as never, undefined as never);
    await migration.down();
    expect(migration.getQueries().at(-1)).toBe(
      `delete from "tessera_identity"."schema_migrations" where "module" = 'identity' and "version" = '${NAME}';`,
    );
  });

  it('refuses a name or checksum that would need quoting, so no SQL can be smuggled into the ledger', () => {
    const checksum = identityMigrationChecksum([]);
    expect(() => identityLedgerInsert("x'); drop schema tessera_identity; --", checksum)).toThrow(
      'invalid identity migration name',
    );
    expect(() => identityLedgerInsert('Initial', checksum)).toThrow('invalid identity migration name');
    expect(() => identityLedgerInsert(NAME, checksum.toUpperCase())).toThrow('invalid checksum');
    expect(() => forgetIdentityMigration(new UsersStateIndex(undefined as never, undefined as never), "'")).toThrow(
      'invalid identity migration name',
    );
  });
});
