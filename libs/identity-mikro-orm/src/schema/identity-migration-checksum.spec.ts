import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { MigrationObject } from '@tessera/database';
import { identityMigrations } from '../migrations/identity-migrations.js';
import { Migration20261122000000IdentityInitial } from '../migrations/migration-20261122000000-identity-initial.js';
import { identityMigrationChecksums } from './identity-migration-checksum.js';

class ExtendedInitial extends Migration20261122000000IdentityInitial {
  override async up(): Promise<void> {
    await super.up();
    this.addSql('create index "users_state_index" on "tessera_identity"."users" ("state");');
  }
}

describe('identityMigrationChecksums', () => {
  it('gives each identity migration, in order, the lower-case hex SHA-256 of its SQL', async () => {
    const checksums = await identityMigrationChecksums(identityMigrations);
    expect(checksums.map((entry) => entry.name)).toEqual(identityMigrations.map((entry) => entry.name));
    for (const { checksum } of checksums) expect(checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes exactly the statements up() adds, each followed by a newline', async () => {
    const migration = new Migration20261122000000IdentityInitial(undefined as never, undefined as never);
    await migration.up();
    const expected = createHash('sha256')
      .update(
        migration
          .getQueries()
          .map((query) => `${String(query)}\n`)
          .join(''),
      )
      .digest('hex');
    const [entry] = await identityMigrationChecksums(identityMigrations);
    expect(entry!.checksum).toBe(expected);
  });

  it('changes when a migration emits different SQL, so an edited released migration is detected as drift', async () => {
    const [released, edited] = await identityMigrationChecksums([
      { name: 'released', class: Migration20261122000000IdentityInitial },
      { name: 'edited', class: ExtendedInitial },
    ]);
    expect(released!.checksum).not.toBe(edited!.checksum);
    const [again] = await identityMigrationChecksums([
      { name: 'released', class: Migration20261122000000IdentityInitial },
    ]);
    expect(again!.checksum).toBe(released!.checksum);
  });

  it('refuses a migration class that does not extend Migration', async () => {
    class NotAMigration {
      up(): void {}
      down(): void {}
    }
    const list: MigrationObject[] = [{ name: 'bogus', class: NotAMigration }];
    await expect(identityMigrationChecksums(list)).rejects.toThrow('migration bogus does not extend Migration');
  });

  it('keeps the released initial migration frozen', async () => {
    const [initial] = await identityMigrationChecksums(identityMigrations);
    expect(initial).toEqual({ name: 'tessera_identity_20261122000000_initial', checksum: RELEASED_INITIAL_CHECKSUM });
  });
});

/** SHA-256 of the initial migration's SQL; a change here means a released migration was edited. */
const RELEASED_INITIAL_CHECKSUM = 'b22faff9d8534caab2328f82ac875d637fb63b5c868d2002ece5c31cbafa4ed0';
