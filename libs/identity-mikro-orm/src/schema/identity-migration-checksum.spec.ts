import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Migration, MigrationObject } from '@tessera/database';
import { identityMigrations } from '../migrations/identity-migrations.js';
import { Migration20261122000000IdentityInitial } from '../migrations/migration-20261122000000-identity-initial.js';
import { recordIdentityMigration } from '../migrations/identity-migration-ledger.js';
import {
  identityMigrationChecksum,
  identityMigrationChecksums,
  isIdentityLedgerStatement,
} from './identity-migration-checksum.js';

class ExtendedInitial extends Migration20261122000000IdentityInitial {
  override async up(): Promise<void> {
    await super.up();
    this.addSql('create index "users_state_index" on "tessera_identity"."users" ("state");');
  }
}

/** The initial migration plus its own ledger row, as every later migration ends. */
class RecordedInitial extends Migration20261122000000IdentityInitial {
  override async up(): Promise<void> {
    await super.up();
    recordIdentityMigration(this, 'recorded');
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

  it('leaves ledger statements out, so a migration recording its own row hashes like one that does not', async () => {
    const [plain, recorded] = await identityMigrationChecksums([
      { name: 'plain', class: Migration20261122000000IdentityInitial },
      { name: 'recorded', class: RecordedInitial },
    ]);
    expect(recorded!.checksum).toBe(plain!.checksum);
    const statements = ['create table "tessera_identity"."t" ("id" uuid);', 'drop table "tessera_identity"."t";'];
    const ledger = `insert into "tessera_identity"."schema_migrations" ("module") values ('identity');`;
    expect(identityMigrationChecksum([statements[0], ledger, statements[1]])).toBe(
      sha256(`${statements[0]}\n${statements[1]}\n`),
    );
  });

  it('ends every migration after the initial with its own ledger row, under its list name and checksum', async () => {
    const checksums = await identityMigrationChecksums(identityMigrations);
    for (const [index, { name, class: MigrationClass }] of identityMigrations.entries()) {
      if (index === 0) continue;
      const migration = new MigrationClass(undefined as never, undefined as never) as Migration;
      await migration.up();
      const last = String(migration.getQueries().at(-1));
      expect(isIdentityLedgerStatement(last)).toBe(true);
      expect(last).toContain(`values ('identity', '${name}', '${checksums[index]!.checksum}', statement_timestamp());`);
    }
  });

  it('keeps the released migrations frozen', async () => {
    expect(await identityMigrationChecksums(identityMigrations)).toEqual([
      { name: 'tessera_identity_20261122000000_initial', checksum: RELEASED_INITIAL_CHECKSUM },
      // Only ledger statements: the SHA-256 of no SQL at all.
      { name: 'tessera_identity_20261122060000_migration_ledger', checksum: sha256('') },
      { name: 'tessera_identity_20261125000000_device_retry', checksum: RELEASED_DEVICE_RETRY_CHECKSUM },
      { name: 'tessera_identity_20261126000000_federation', checksum: RELEASED_FEDERATION_CHECKSUM },
      { name: 'tessera_identity_20261127000000_scim', checksum: RELEASED_SCIM_CHECKSUM },
      { name: 'tessera_identity_20261128000000_session_notify', checksum: RELEASED_SESSION_NOTIFY_CHECKSUM },
      {
        name: 'tessera_identity_20261129000000_recovery_code_digest',
        checksum: RELEASED_RECOVERY_CODE_DIGEST_CHECKSUM,
      },
    ]);
  });
});

describe('isIdentityLedgerStatement', () => {
  it('recognises inserts into tessera_identity.schema_migrations however they are quoted, cased or spaced', () => {
    for (const statement of [
      `insert into "tessera_identity"."schema_migrations" ("module") values ('identity');`,
      `INSERT INTO tessera_identity.schema_migrations (module) VALUES ('identity')`,
      `  insert\n  into "tessera_identity" . "schema_migrations"(module) values ('identity')`,
    ])
      expect(isIdentityLedgerStatement(statement)).toBe(true);
  });

  it('hashes every other statement, including other writes to the ledger and look-alike tables', () => {
    for (const statement of [
      `delete from "tessera_identity"."schema_migrations";`,
      `update tessera_identity.schema_migrations set checksum = checksum;`,
      `insert into "tessera_identity"."schema_migrations_archive" ("module") values ('identity');`,
      `insert into "public"."schema_migrations" ("module") values ('identity');`,
      `create table "tessera_identity"."t" ("id" uuid); insert into tessera_identity.schema_migrations values (1);`,
    ])
      expect(isIdentityLedgerStatement(statement)).toBe(false);
  });
});

/** SHA-256 of the SCIM migration's SQL (issue 15); frozen like the others once released. */
const RELEASED_SCIM_CHECKSUM = '78374683406ddb2ffc17811bc9046e0603e47e412e2b2e9a2b0c8996bbb79024';
/** The session-notify migration's checksum (issue 16 part 2); frozen like the others. */
const RELEASED_SESSION_NOTIFY_CHECKSUM = 'caf6eae61f5e9cd76f41d716fe5703a11c5bce95f0b10945b8a1e1ffa38deb59';
/** The recovery-code-digest migration's checksum (issue 17); frozen like the others. */
const RELEASED_RECOVERY_CODE_DIGEST_CHECKSUM = '2598739160bfe001c405c024a575a1296b039af1dad36193b311716a1d8ad056';

/** SHA-256 of the federation migration's SQL (issue 14); frozen like the others once released. */
const RELEASED_FEDERATION_CHECKSUM = '083b2afc53279992b54d2faaaf0c35c53494448d1af562ccbf62dd2e1349ec26';

/** SHA-256 of the device retry migration's SQL (issue 13); frozen like the initial one. */
const RELEASED_DEVICE_RETRY_CHECKSUM = 'a0c79e8c9031358d05505a74f6cd39be004b2f41107af18e58bd011e9d3fc6c9';

/** SHA-256 of the initial migration's SQL; a change here means a released migration was edited. */
const RELEASED_INITIAL_CHECKSUM = 'b22faff9d8534caab2328f82ac875d637fb63b5c868d2002ece5c31cbafa4ed0';
