import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LockMode } from '@mikro-orm/core';
import { NoteSchema, noteMigrations } from '../../../test/support/note-entity.fixture.js';
import { Migration } from '@mikro-orm/migrations';
import { openDatabase, prepareDatabase } from './database.factory.js';
import { buildMikroOrmConfig, resolveMigrateMode } from './mikro-orm.config.js';
import { runMigrations } from './migration-runner.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Runs against `DATABASE_URL` when set (a fresh database), embedded PGlite otherwise. */
describe('migrations', () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });

  afterAll(async () => {
    await testDb.close();
  });

  it('applies a migrationsList in order, records it, and skips it the next time', async () => {
    const options = { url: testDb.url, entities: [NoteSchema], migrations: { list: noteMigrations } };
    expect(await runMigrations(options)).toEqual(noteMigrations.map((migration) => migration.name));
    expect(await runMigrations(options)).toEqual([]);

    const db = await openDatabase({ ...options, migrate: 'manual' });
    try {
      const rows = await db.orm.em
        .fork()
        .getConnection()
        .execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
      expect(rows.map((row) => row.name)).toEqual(noteMigrations.map((migration) => migration.name));
      const columns = await db.orm.em
        .fork()
        .getConnection()
        .execute<{ column_name: string }[]>(
          "select column_name from information_schema.columns where table_name = 'note' order by ordinal_position",
        );
      expect(columns.map((column) => column.column_name)).toEqual(['id', 'title', 'counter']);
    } finally {
      await db.close();
    }
  });

  it('records migrations in a custom table and schema', async () => {
    const fresh = await createTestDatabase();
    const db = await openDatabase({
      url: fresh.url,
      entities: [NoteSchema],
      migrations: { list: noteMigrations.slice(0, 1), tableName: 'applied', schema: 'meta' },
    });
    try {
      const rows = await db.orm.em.fork().getConnection().execute<{ name: string }[]>('select name from meta.applied');
      expect(rows.map((row) => row.name)).toEqual([noteMigrations[0]!.name]);
    } finally {
      await db.close();
      await fresh.close();
    }
  });

  it('rolls back every migration of a failed run', async () => {
    class Broken extends Migration {
      override async up(): Promise<void> {
        this.addSql('create table "half_done" ("id" int)');
        this.addSql('select * from "no_such_table"');
      }
    }
    const list = [...noteMigrations, { name: 'Migration20250103000000Broken', class: Broken }];
    const fresh = await createTestDatabase();
    try {
      await expect(runMigrations({ url: fresh.url, entities: [NoteSchema], migrations: { list } })).rejects.toThrow(
        /no_such_table/,
      );
      const db = await openDatabase({ url: fresh.url, entities: [NoteSchema], migrate: 'manual' });
      try {
        const [row] = await db.orm.em
          .fork()
          .getConnection()
          .execute<{ note: string | null; half: string | null }[]>(
            "select to_regclass('note')::text as note, to_regclass('half_done')::text as half",
          );
        expect(row).toEqual({ note: null, half: null });
      } finally {
        await db.close();
      }
    } finally {
      await fresh.close();
    }
  });

  it('serialises concurrent SELECT ... FOR UPDATE transactions', async () => {
    const db = await openDatabase({ url: testDb.url, entities: [NoteSchema], migrations: { list: noteMigrations } });
    try {
      const em = db.orm.em.fork();
      const note = em.create(NoteSchema, { title: 'contended' });
      await em.flush();
      const increments = Array.from({ length: 8 }, () =>
        db.orm.em.fork().transactional(async (tx) => {
          const row = await tx.findOneOrFail(NoteSchema, note.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
          row.counter += 1;
        }),
      );
      await Promise.all(increments);
      expect((await db.orm.em.fork().findOneOrFail(NoteSchema, note.id)).counter).toBe(8);
    } finally {
      await db.close();
    }
  });
});

describe('configuration', () => {
  it('uses the stock PostgreSQL driver with explicit entities and no file access', async () => {
    const handle = await buildMikroOrmConfig({ url: 'postgres://u@db.example:5432/app', entities: [NoteSchema] });
    expect(handle.embedded).toBeUndefined();
    expect(handle.config.clientUrl).toBe('postgres://u@db.example:5432/app');
    expect(handle.config.driver?.name).toBe('PostgreSqlDriver');
    expect(handle.config.discovery).toMatchObject({ disableDynamicFileAccess: true, requireEntitiesArray: true });
    expect(handle.config.migrations).toMatchObject({ snapshot: false, migrationsList: [] });
    expect(handle.config.pool).toMatchObject({
      acquireTimeoutMillis: 2000,
      createTimeoutMillis: 3000,
      idleTimeoutMillis: 30000,
    });
    expect(handle.config.pool).not.toHaveProperty('max');
    expect(handle.config.driverOptions).toEqual({
      connection: { statement_timeout: 2000, lock_timeout: 1000, connectionTimeoutMillis: 2000 },
    });
    expect(handle.migrationConfig.driverOptions).toEqual({ connection: { connectionTimeoutMillis: 2000 } });
    await handle.close();
  });

  it('migrates automatically except in production and staging', () => {
    const original = process.env.NODE_ENV;
    try {
      expect(resolveMigrateMode({})).toBe('auto');
      process.env.NODE_ENV = 'production';
      expect(resolveMigrateMode({})).toBe('manual');
      process.env.NODE_ENV = 'staging';
      expect(resolveMigrateMode({})).toBe('manual');
      expect(resolveMigrateMode({ migrate: 'auto' })).toBe('auto');
    } finally {
      process.env.NODE_ENV = original;
    }
  });

  it('reports an unreachable server without leaving anything running', async () => {
    await expect(
      prepareDatabase({
        url: 'postgres://postgres@127.0.0.1:1/none',
        entities: [NoteSchema],
        pool: { acquireTimeoutMillis: 2000 },
      }),
    ).rejects.toThrow();
  });
});
