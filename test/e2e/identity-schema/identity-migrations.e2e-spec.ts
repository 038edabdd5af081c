import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import { identityEntities } from '../../../libs/identity-mikro-orm/src/entities/identity.entities.js';
import { identityMigrations } from '../../../libs/identity-mikro-orm/src/migrations/identity-migrations.js';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
} from '../../../libs/identity-mikro-orm/src/schema/identity-schema.values.js';
import { IDENTITY_TABLES, type Row } from './identity-rows.fixture.js';

/** Tables whose rows change after insertion, hence carry `version` (SCIM groups start at 1). */
const MUTABLE_TABLES = [
  'users',
  'credentials',
  'sessions',
  'organizations',
  'memberships',
  'invitations',
  'service_identities',
  'service_credentials',
  'challenges',
  'recovery_codes',
  'device_grants',
  'device_token_families',
  'device_access_tokens',
  'device_refresh_tokens',
  'external_identities',
  'federation_provider_controls',
  'federation_provider_registrations',
  'scim_groups',
  'scim_connections',
  'scim_connection_tokens',
  'scim_users',
  'rate_limit_buckets',
];

const INITIAL = 'tessera_identity_20261122000000_initial';
const LEDGER = 'tessera_identity_20261122060000_migration_ledger';
const DEVICE_RETRY = 'tessera_identity_20261125000000_device_retry';
const FEDERATION = 'tessera_identity_20261126000000_federation';
const SCIM = 'tessera_identity_20261127000000_scim';
const SESSION_NOTIFY = 'tessera_identity_20261128000000_session_notify';
const RECOVERY_CODE_DIGEST = 'tessera_identity_20261129000000_recovery_code_digest';

/** Tables of the federation (issue 14) and SCIM (issue 15) migrations, gone after their down(). */
const SCIM_TABLES = new Set<string>([
  'federation_provider_registrations',
  'scim_connections',
  'scim_connection_group_roles',
  'scim_connection_tokens',
  'scim_users',
  'scim_user_emails',
  'scim_group_members',
]);

/** Runs on embedded PGlite, or on fresh databases of the DATABASE_URL server when it is set. */
describe(`identity schema migrations (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let testDb: TestDatabase;
  let db: OpenDatabase;
  const sql = (query: string, params: unknown[] = []) => db.orm.em.fork().getConnection().execute<Row[]>(query, params);
  const tablesIn = async (schema: string) =>
    (
      await sql(`select table_name from information_schema.tables where table_schema = ? order by table_name`, [schema])
    ).map((row) => String(row.table_name));

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({
      url: testDb.url,
      entities: [...identityEntities],
      migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
    });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  describe('from an empty database', () => {
    it('creates every table of the model in schema tessera_identity, next to the migrator table', async () => {
      expect(await tablesIn(IDENTITY_SCHEMA)).toEqual([...IDENTITY_TABLES, IDENTITY_MIGRATIONS_TABLE].sort());
      expect(await tablesIn('public')).toEqual([]);
    });

    it('records the identity migrations under their namespaced names in tessera_identity', async () => {
      const applied = await sql(`select name from "tessera_identity"."mikro_orm_migrations" order by id`);
      expect(applied.map((row) => row.name)).toEqual([
        INITIAL,
        LEDGER,
        DEVICE_RETRY,
        FEDERATION,
        SCIM,
        SESSION_NOTIFY,
        RECOVERY_CODE_DIGEST,
      ]);
    });

    it('stores no JSON documents, only timestamptz instants and uuid ids', async () => {
      const columns = await sql(
        `select table_name, column_name, data_type, udt_name from information_schema.columns
          where table_schema = ? and table_name <> ?`,
        [IDENTITY_SCHEMA, IDENTITY_MIGRATIONS_TABLE],
      );
      const of = (predicate: (row: Row) => boolean) =>
        columns.filter(predicate).map((row) => `${row.table_name}.${row.column_name}:${row.udt_name}`);
      expect(of((row) => ['json', 'jsonb'].includes(String(row.udt_name)))).toEqual([]);
      expect(of((row) => String(row.column_name).endsWith('_at') && row.udt_name !== 'timestamptz')).toEqual([]);
      expect(of((row) => String(row.data_type).startsWith('timestamp') && row.udt_name !== 'timestamptz')).toEqual([]);
      // Only the two singletons (boolean `id`) and text-keyed tables have no uuid `id`.
      expect(of((row) => row.column_name === 'id' && row.udt_name !== 'uuid').sort()).toEqual([
        'bootstrap_receipts.id:bool',
        'environment.id:bool',
      ]);
      expect(
        of(
          (row) =>
            /(^|_)(user|organization|membership|grant|family|identity|session|token)_id$/.test(
              String(row.column_name),
            ) && row.udt_name !== 'uuid',
        ),
      ).toEqual([]);
    });

    it('gives exactly the mutable tables an integer version, not null, defaulting to its lower bound', async () => {
      const versions = await sql(
        `select c.table_name, c.is_nullable, c.column_default, c.udt_name, pg_get_constraintdef(k.oid) as bound
           from information_schema.columns c
           join pg_constraint k on k.conname = c.table_name || '_version_check' and k.connamespace = ?::regnamespace
          where c.table_schema = ? and c.column_name = 'version' and c.table_name <> 'schema_migrations'
          order by c.table_name`,
        [IDENTITY_SCHEMA, IDENTITY_SCHEMA],
      );
      expect(versions.map((row) => row.table_name)).toEqual([...MUTABLE_TABLES].sort());
      for (const row of versions) {
        const floor = ['scim_groups', 'scim_users'].includes(String(row.table_name)) ? '1' : '0';
        expect(row).toMatchObject({
          udt_name: 'int4',
          is_nullable: 'NO',
          column_default: floor,
          bound: `CHECK ((version >= ${floor}))`,
        });
      }
    });
  });

  describe('entity metadata', () => {
    it('matches the migrated database exactly: the schema generator proposes no change', async () => {
      const diff = await db.orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
      expect(diff).toBe('');
    });

    it('notices a dropped CHECK, partial unique index and foreign key, and restores them from the entities', async () => {
      await sql(`alter table "tessera_identity"."sessions" drop constraint "sessions_idle_expiry_check"`);
      await sql(`drop index "tessera_identity"."invitations_pending_email_unique"`);
      await sql(`alter table "tessera_identity"."memberships" drop constraint "memberships_user_id_foreign"`);
      const generator = db.orm.getSchemaGenerator();
      const drift = await generator.getUpdateSchemaSQL({ wrap: false });
      expect(drift).toContain('sessions_idle_expiry_check');
      expect(drift).toContain('invitations_pending_email_unique');
      expect(drift).toContain('memberships_user_id_foreign');
      await generator.updateSchema({ wrap: false });
      expect(await generator.getUpdateSchemaSQL({ wrap: false })).toBe('');
      const [restored] = await sql(
        `select pg_get_constraintdef(oid) as definition from pg_constraint where conname = 'memberships_user_id_foreign'`,
      );
      expect(restored!.definition).toBe('FOREIGN KEY (user_id) REFERENCES tessera_identity.users(id)');
    });
  });

  describe('down()', () => {
    it('forgets the ledger rows when the ledger migration is reverted, and records them again on up()', async () => {
      const migrator = db.orm.getMigrator();
      const ledger = async () =>
        (await sql(`select version from "tessera_identity"."schema_migrations" order by version`)).map(
          (row) => row.version,
        );
      expect(await ledger()).toEqual([
        INITIAL,
        LEDGER,
        DEVICE_RETRY,
        FEDERATION,
        SCIM,
        SESSION_NOTIFY,
        RECOVERY_CODE_DIGEST,
      ]);
      const triggers = async () =>
        (
          await sql(
            `select tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and not t.tgisinternal order by tgname`,
            [IDENTITY_SCHEMA],
          )
        ).map((row) => row.tgname);
      expect(await triggers()).toEqual([
        'sessions_notify_delete',
        'sessions_notify_update',
        'users_notify_delete',
        'users_notify_update',
      ]);
      const selectorNullable = async () =>
        (
          await sql(
            `select is_nullable from information_schema.columns where table_schema = ? and table_name = 'recovery_codes' and column_name = 'public_selector'`,
            [IDENTITY_SCHEMA],
          )
        )[0]?.is_nullable;
      expect(await selectorNullable()).toBe('YES');
      await migrator.down();
      expect(await ledger()).toEqual([INITIAL, LEDGER, DEVICE_RETRY, FEDERATION, SCIM, SESSION_NOTIFY]);
      expect(await selectorNullable()).toBe('NO');
      await migrator.down();
      expect([await ledger(), await triggers()]).toEqual([[INITIAL, LEDGER, DEVICE_RETRY, FEDERATION, SCIM], []]);
      await migrator.down();
      expect(await ledger()).toEqual([INITIAL, LEDGER, DEVICE_RETRY, FEDERATION]);
      expect(await tablesIn(IDENTITY_SCHEMA)).not.toContain('scim_users');
      await migrator.down();
      expect(await ledger()).toEqual([INITIAL, LEDGER, DEVICE_RETRY]);
      expect(await tablesIn(IDENTITY_SCHEMA)).not.toContain('federation_provider_registrations');
      await migrator.down();
      expect(await ledger()).toEqual([INITIAL, LEDGER]);
      await migrator.down();
      expect(await ledger()).toEqual([]);
      const beforeFederation = IDENTITY_TABLES.filter((name) => !SCIM_TABLES.has(name));
      expect(await tablesIn(IDENTITY_SCHEMA)).toEqual([...beforeFederation, IDENTITY_MIGRATIONS_TABLE].sort());
      await migrator.up();
      expect(await ledger()).toEqual([
        INITIAL,
        LEDGER,
        DEVICE_RETRY,
        FEDERATION,
        SCIM,
        SESSION_NOTIFY,
        RECOVERY_CODE_DIGEST,
      ]);
    });

    it('drops every identity table but keeps the schema holding the migrator table, and up() recreates them', async () => {
      const migrator = db.orm.getMigrator();
      await migrator.down({ to: 0 });
      expect(await tablesIn(IDENTITY_SCHEMA)).toEqual([IDENTITY_MIGRATIONS_TABLE]);
      await migrator.up();
      expect(await tablesIn(IDENTITY_SCHEMA)).toEqual([...IDENTITY_TABLES, IDENTITY_MIGRATIONS_TABLE].sort());
      expect(await db.orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).toBe('');
    });

    it('drops the schema itself when the migrator table lives elsewhere', async () => {
      const otherDb = await createTestDatabase();
      const other = await openDatabase({
        url: otherDb.url,
        entities: [...identityEntities],
        migrations: { list: [...identityMigrations] },
      });
      try {
        const schemaCount = async () =>
          (
            await other.orm.em
              .fork()
              .getConnection()
              .execute<Row[]>(`select count(*)::int as n from pg_namespace where nspname = ?`, [IDENTITY_SCHEMA])
          )[0]!.n;
        expect(await schemaCount()).toBe(1);
        await other.orm.getMigrator().down({ to: 0 });
        expect(await schemaCount()).toBe(0);
      } finally {
        await other.close();
        await otherDb.close();
      }
    });
  });
});
