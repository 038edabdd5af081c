import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { knex } from '@mikro-orm/postgresql';
import { NoteSchema, noteMigrations } from '../../../test/support/note-entity.fixture.js';
import { openDatabase, type OpenDatabase } from './database.factory.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Runs against `DATABASE_URL` when set (fresh databases on that server), embedded PGlite otherwise. */
describe('createTestDatabase', () => {
  const options = { entities: [NoteSchema], migrations: { list: noteMigrations } };
  let first: TestDatabase;
  let second: TestDatabase;
  let a: OpenDatabase;
  let b: OpenDatabase;

  beforeAll(async () => {
    [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    [a, b] = await Promise.all([
      openDatabase({ ...options, url: first.url }),
      openDatabase({ ...options, url: second.url }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([first?.close(), second?.close()]);
  });

  it('backs each test database with the server from DATABASE_URL, or with its own PGlite', () => {
    expect(first.url).not.toBe(second.url);
    expect(first.embedded).toBe(!process.env.DATABASE_URL);
    if (process.env.DATABASE_URL) {
      expect(new URL(first.url).pathname).toMatch(new RegExp(`^/tessera_t_${process.pid}_[0-9a-f]{8}$`));
    }
  });

  it('isolates the databases from each other', async () => {
    await a.orm.em.fork().insert(NoteSchema, { title: 'only in a' });
    expect(await a.orm.em.fork().count(NoteSchema, { title: 'only in a' })).toBe(1);
    expect(await b.orm.em.fork().count(NoteSchema)).toBe(0);
  });

  it('gives each database its own migration history', async () => {
    const names = (db: OpenDatabase) =>
      db.orm.em.fork().getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations');
    expect(await names(a)).toHaveLength(noteMigrations.length);
    expect(await names(b)).toHaveLength(noteMigrations.length);
  });
});

describe('createTestDatabase close', () => {
  it('drops the database (server) or stops PGlite (embedded), even with a connection left open', async () => {
    const testDb = await createTestDatabase();
    const leftOpen = knex({ client: 'pg', connection: testDb.url, pool: { min: 0, max: 1 } });
    await leftOpen.raw('select 1');
    await testDb.close();
    await leftOpen.destroy();
    if (testDb.embedded) {
      const late = knex({
        client: 'pg',
        connection: testDb.url,
        pool: { min: 0, max: 1 },
        acquireConnectionTimeout: 2000,
      });
      await expect(late.raw('select 1')).rejects.toThrow(/ECONNREFUSED|Timeout/);
      await late.destroy();
      return;
    }
    const admin = knex({ client: 'pg', connection: process.env.DATABASE_URL!, pool: { min: 0, max: 1 } });
    try {
      const name = new URL(testDb.url).pathname.slice(1);
      const { rows } = await admin.raw<{ rows: unknown[] }>('select 1 from pg_database where datname = ?', [name]);
      expect(rows).toHaveLength(0);
    } finally {
      await admin.destroy();
    }
  });
});
