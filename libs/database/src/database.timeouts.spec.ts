import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NoteSchema, noteMigrations } from '../../../test/support/note-entity.fixture.js';
import { openDatabase, type OpenDatabase } from './database.factory.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * The wait bounds against a database that stops answering: a TCP proxy in this process stands
 * between the ORM and the test database (PGlite by default, `DATABASE_URL` otherwise) and freezes.
 */
describe('database wait bounds', () => {
  let testDb: TestDatabase;
  let proxy: TcpProxy;
  let db: OpenDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    proxy = await startTcpProxy(testDb.url);
    db = await openDatabase({
      url: proxy.url,
      entities: [NoteSchema],
      migrations: { list: noteMigrations },
      timeouts: { queryMs: 600, acquireMs: 500, connectMs: 500 },
      // Behind the proxy an embedded server is not recognised by its URL: say it has one session.
      pool: testDb.embedded ? { min: 0, max: 1 } : {},
    });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    await testDb?.close();
  });

  const select = () => db.orm.em.fork().getConnection().execute<{ one: number }[]>('select 1 as one');
  const timed = async (work: () => Promise<unknown>) => {
    const started = Date.now();
    const outcome = await work().then(
      () => 'answered',
      (error: Error) => error.message,
    );
    return { outcome, ms: Date.now() - started };
  };

  it('sends statement_timeout and lock_timeout with every new connection', async () => {
    const connection = await db.orm.em.getConnection().getKnex().client.acquireConnection();
    try {
      expect(connection.connectionParameters).toMatchObject({ statement_timeout: 2000, lock_timeout: 1000 });
      if (!testDb.embedded) {
        // PGlite ignores startup parameters (its statements are bounded by the query deadline only).
        const shown = await connection.query('select current_setting($1) as s, current_setting($2) as l', [
          'statement_timeout',
          'lock_timeout',
        ]);
        expect(shown.rows[0]).toEqual({ s: '2s', l: '1s' });
      }
    } finally {
      await db.orm.em.getConnection().getKnex().client.releaseConnection(connection);
    }
  });

  it('fails a query on a frozen database at its deadline, destroys that connection and serves again after the thaw', async () => {
    expect(await select()).toEqual([{ one: 1 }]);
    proxy.freeze();
    try {
      const stuck = await timed(select);
      expect(stuck.outcome).toMatch(/Connection terminated/);
      expect(stuck.ms).toBeLessThan(1500);
      // The dead connection is not handed out again: the next query needs a new one, whose connect is bounded too.
      const next = await timed(select);
      expect(next.outcome).not.toBe('answered');
      expect(next.ms).toBeLessThan(1500);
    } finally {
      proxy.thaw();
    }
    const deadline = Date.now() + 5000;
    let recovered = await timed(select);
    while (recovered.outcome !== 'answered' && Date.now() < deadline) recovered = await timed(select);
    expect(recovered.outcome).toBe('answered');
    expect(await select()).toEqual([{ one: 1 }]);
  });
});
