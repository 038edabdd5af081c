import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestDatabase,
  openDatabase,
  runMigrations,
  type OpenDatabase,
  type TestDatabase,
} from '@tessera/database';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrationChecksums,
  identityMigrations,
  MikroOrmIdentityStore,
} from '@tessera/identity-mikro-orm';
import { demoEntities, demoMigrations } from '../../../apps/demo/src/database.js';
import type { Row } from './identity-rows.fixture.js';

const INITIAL = 'tessera_identity_20261122000000_initial';
const LEDGER = 'tessera_identity_20261122060000_migration_ledger';
const DEVICE_RETRY = 'tessera_identity_20261125000000_device_retry';
const FEDERATION = 'tessera_identity_20261126000000_federation';
const SCIM = 'tessera_identity_20261127000000_scim';
const SESSION_NOTIFY = 'tessera_identity_20261128000000_session_notify';
const RECOVERY_CODE_DIGEST = 'tessera_identity_20261129000000_recovery_code_digest';
const TEST_MARKER = { environment: 'test', namespace: 'tessera_test' } as const;
const VERIFIED = { ok: true, value: undefined };
const SCHEMA_REFUSED = { ok: false, code: 'internal', refusal: 'schema_version' };
const MARKER_REFUSED = { ok: false, code: 'internal', refusal: 'environment_marker' };

/** Runs on embedded PGlite, or on fresh databases of the DATABASE_URL server when it is set. */
describe(`identity migration ledger (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; identity-model §9.7)`, () => {
  const databases: TestDatabase[] = [];
  const fresh = async (): Promise<TestDatabase> => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  afterAll(async () => {
    for (const database of databases) await database.close();
  });

  describe('on a database at the latest version', () => {
    let db: OpenDatabase;
    let store: MikroOrmIdentityStore;
    const sql = (query: string, params: unknown[] = []) =>
      db.orm.em.fork().getConnection().execute<Row[]>(query, params);

    /** Changes the ledger, checks that the store refuses to open, then undoes the change. */
    async function expectRefusedWhile(
      change: string | string[],
      undo: string | string[],
      refusal = SCHEMA_REFUSED,
    ): Promise<void> {
      for (const statement of [change].flat()) await sql(statement);
      try {
        expect(await store.verifyEnvironment(TEST_MARKER)).toEqual(refusal);
        await expect(store.isEmpty()).rejects.toMatchObject({ code: 'internal' });
        expect(await store.provisionEnvironment(TEST_MARKER)).toEqual(refusal);
        await expect(store.isEmpty()).rejects.toMatchObject({ code: 'internal' });
      } finally {
        for (const statement of [undo].flat()) await sql(statement);
      }
      expect(await store.verifyEnvironment(TEST_MARKER)).toEqual(VERIFIED);
      expect(await store.isEmpty()).toBe(true);
    }

    beforeAll(async () => {
      db = await openDatabase({
        url: (await fresh()).url,
        entities: [...identityEntities],
        migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
      });
      store = new MikroOrmIdentityStore(db.orm);
    });
    afterAll(async () => db?.close());

    it('records one ledger row per identity migration, with the checksum computed from the migration', async () => {
      const expected = await identityMigrationChecksums(identityMigrations);
      expect(expected.map(({ name }) => name)).toEqual([
        INITIAL,
        LEDGER,
        DEVICE_RETRY,
        FEDERATION,
        SCIM,
        SESSION_NOTIFY,
        RECOVERY_CODE_DIGEST,
      ]);
      const rows = await sql(
        `select module, version, checksum, applied_at <= statement_timestamp() as applied from tessera_identity.schema_migrations order by version`,
      );
      expect(rows).toEqual(
        expected.map(({ name, checksum }) => ({
          module: 'identity',
          version: name,
          checksum,
          applied: true,
        })),
      );
    });

    it('provisions and verifies the marker, then serves operations', async () => {
      expect(await store.provisionEnvironment(TEST_MARKER)).toEqual(VERIFIED);
      expect(await store.verifyEnvironment(TEST_MARKER)).toEqual(VERIFIED);
      expect(await store.isEmpty()).toBe(true);
    });

    it('refuses drift: a ledger checksum that is not the migration checksum', async () => {
      await expectRefusedWhile(
        `update tessera_identity.schema_migrations set checksum = reverse(checksum) where version = '${INITIAL}'`,
        `update tessera_identity.schema_migrations set checksum = reverse(checksum) where version = '${INITIAL}'`,
      );
    });

    it('refuses a schema behind this build: the latest migration is not in the ledger', async () => {
      const [row] = await sql(`select checksum from tessera_identity.schema_migrations where version = ?`, [LEDGER]);
      await expectRefusedWhile(
        `delete from tessera_identity.schema_migrations where version = '${LEDGER}'`,
        `insert into tessera_identity.schema_migrations values ('identity', '${LEDGER}', '${String(row!.checksum)}', now())`,
      );
    });

    it('refuses a database a newer build migrated: a ledger row this build does not know', async () => {
      await expectRefusedWhile(
        `insert into tessera_identity.schema_migrations values ('identity', 'tessera_identity_20991231000000_future', '${'0'.repeat(64)}', now())`,
        `delete from tessera_identity.schema_migrations where version = 'tessera_identity_20991231000000_future'`,
      );
    });

    it('ignores the ledger rows of other modules', async () => {
      await sql(
        `insert into tessera_identity.schema_migrations values ('billing', 'billing_20270101000000_initial', '${'1'.repeat(64)}', now())`,
      );
      expect(await store.verifyEnvironment(TEST_MARKER)).toEqual(VERIFIED);
      await sql(`delete from tessera_identity.schema_migrations where module = 'billing'`);
    });

    it('names the marker when both the marker and the schema are wrong: migrating the wrong database would not help', async () => {
      await expectRefusedWhile(
        [
          `delete from tessera_identity.schema_migrations where version = '${LEDGER}'`,
          `update tessera_identity.environment set namespace = 'tessera_test_other'`,
        ],
        [
          `update tessera_identity.environment set namespace = 'tessera_test'`,
          `insert into tessera_identity.schema_migrations select 'identity', '${LEDGER}', encode(sha256(''), 'hex'), now()`,
        ],
        MARKER_REFUSED,
      );
    });
  });

  it('writes no marker while the schema is not at the latest version', async () => {
    const db = await openDatabase({
      url: (await fresh()).url,
      entities: [...identityEntities],
      migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
    });
    try {
      const connection = db.orm.em.fork().getConnection();
      await connection.execute(`delete from tessera_identity.schema_migrations where version = '${LEDGER}'`);
      expect(await new MikroOrmIdentityStore(db.orm).provisionEnvironment(TEST_MARKER)).toEqual(SCHEMA_REFUSED);
      expect(await connection.execute(`select * from tessera_identity.environment`)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('brings a demo database migrated before the ledger to the latest version with the next migration run', async () => {
    const url = (await fresh()).url;
    // The build before the ledger: the demo's migrations without it, in MikroORM's default table.
    const before = await openDatabase({
      url,
      entities: demoEntities,
      migrations: {
        list: demoMigrations.filter(
          ({ name }) => ![LEDGER, DEVICE_RETRY, FEDERATION, SCIM, SESSION_NOTIFY, RECOVERY_CODE_DIGEST].includes(name),
        ),
      },
      migrate: 'auto',
    });
    try {
      const store = new MikroOrmIdentityStore(before.orm);
      await before.orm.em
        .fork()
        .getConnection()
        .execute(
          `insert into tessera_identity.environment (id, environment, namespace, created_at) values (true, 'test', 'tessera_test', now())`,
        );
      expect(await store.verifyEnvironment(TEST_MARKER)).toEqual(SCHEMA_REFUSED);
    } finally {
      await before.close();
    }

    const after = await openDatabase({
      url,
      entities: demoEntities,
      migrations: { list: demoMigrations },
      migrate: 'manual',
    });
    try {
      expect(await runMigrations(after.orm)).toEqual([
        LEDGER,
        DEVICE_RETRY,
        FEDERATION,
        SCIM,
        SESSION_NOTIFY,
        RECOVERY_CODE_DIGEST,
      ]);
      expect(await new MikroOrmIdentityStore(after.orm).verifyEnvironment(TEST_MARKER)).toEqual(VERIFIED);
      expect(await runMigrations(after.orm)).toEqual([]);
    } finally {
      await after.close();
    }
  });
});
