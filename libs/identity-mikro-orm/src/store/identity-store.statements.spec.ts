import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import { NoteSchema, noteMigrations } from '../../../../test/support/note-entity.fixture.js';
import { StoreGateway } from './identity-store.gateway.js';
import { driverPool, runStatement, statementOn } from './identity-store.statements.js';

/**
 * The one statement path against the real database: embedded PGlite by default (every socket
 * connection shares ONE backend session), the `DATABASE_URL` server otherwise.
 */
describe('store statements on recycled connections and a migrating schema', () => {
  let testDb: TestDatabase;
  let db: OpenDatabase;
  let gateway: StoreGateway;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({
      url: testDb.url,
      entities: [NoteSchema],
      migrations: { list: noteMigrations },
      timeouts: { idleMs: 300 },
      // One connection on both databases, so each case meets the connection that prepared before.
      pool: { min: 0, max: 1 },
    });
    gateway = new StoreGateway(db.orm.em);
    gateway.setVerified(true);
    await db.orm.em.getConnection().execute(`insert into note (title) values ('first'), ('second')`);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  const knexPool = () =>
    (
      db.orm.em.getConnection() as unknown as {
        getKnex(): { client: { pool: { numFree(): number; numUsed(): number; numPendingCreates(): number } } };
      }
    ).getKnex().client.pool;

  /** Waits until the pool has closed its idle connection (the idle timeout is 300 ms here). */
  async function reaped(): Promise<void> {
    const deadline = Date.now() + 5000;
    while (knexPool().numFree() + knexPool().numUsed() + knexPool().numPendingCreates() > 0) {
      if (Date.now() > deadline) throw new Error('the pool never reaped its idle connection');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const readTitle = (id: number) =>
    gateway.read(async (sql) => (await sql('select title from note where id = ?', [id]))[0]?.['title']);

  it('answers prepared reads after the pool reaps its idle connection (was 42P05 until restart)', async () => {
    expect(await readTitle(1)).toBe('first');
    for (let cycle = 0; cycle < 3; cycle++) {
      await reaped();
      expect(await readTitle(1)).toBe('first');
      const written = await gateway.transaction(
        async (sql) => (await sql('select title from note where id = ?', [2]))[0],
      );
      expect(written).toEqual({ ok: true, value: { title: 'second' } });
    }
  });

  it('does not accumulate the prepared statements of reaped connections on the server session', async () => {
    await reaped();
    const count = await gateway.read(async (sql) => {
      await sql('select title from note where id = ?', [1]);
      return Number((await sql('select count(*) as n from pg_prepared_statements'))[0]?.['n']);
    });
    // This connection's two statements only: a shared embedded session is reset when a connection opens.
    expect(count).toBe(2);
  });

  it('recovers a statement name the server session already holds (42P05)', async () => {
    const pool = driverPool(db.orm.em);
    const connection = await pool.acquireConnection();
    try {
      const query = 'select title from note where id = ? and title is not null';
      const { name } = statementOn(connection, query, [1]);
      await connection.query(`prepare "${name}" (int) as select 'stale' as title`);
      expect(await runStatement(connection, query, [1], false)).toEqual([{ title: 'first' }]);
    } finally {
      await pool.releaseConnection(connection);
    }
  });

  it('recovers a statement the driver believes parsed but the server session lost (26000)', async () => {
    const pool = driverPool(db.orm.em);
    const connection = await pool.acquireConnection();
    try {
      const query = 'select title from note where id = ? and id > 0';
      expect(await runStatement(connection, query, [2], false)).toEqual([{ title: 'second' }]);
      await connection.query('deallocate all');
      expect(await runStatement(connection, query, [2], false)).toEqual([{ title: 'second' }]);
    } finally {
      await pool.releaseConnection(connection);
    }
  });

  it('recovers a statement whose result type a migration changed (0A000), alone and inside a transaction', async () => {
    const pool = driverPool(db.orm.em);
    const connection = await pool.acquireConnection();
    // `*` on purpose: the store names its columns, this proves the fallback for what still changes.
    const query = 'select * from note where id = ?';
    try {
      expect(Object.keys((await runStatement(connection, query, [1], false))[0]!)).toEqual(['id', 'title', 'counter']);
      await connection.query('alter table note add column extra_a text');
      expect(Object.keys((await runStatement(connection, query, [1], false))[0]!)).toContain('extra_a');
    } finally {
      await pool.releaseConnection(connection);
    }
    const read = () => gateway.transaction(async (sql) => Object.keys((await sql(query, [1]))[0]!));
    expect(await read()).toMatchObject({ ok: true });
    await db.orm.em.getConnection().execute('alter table note add column extra_b text');
    expect(await read()).toEqual({ ok: true, value: ['id', 'title', 'counter', 'extra_a', 'extra_b'] });
  });
});
