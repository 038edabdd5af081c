import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestDatabase,
  openDatabase,
  startTcpProxy,
  type OpenDatabase,
  type TcpProxy,
  type TestDatabase,
} from '@tessera/database';
import { identityEntities } from '../entities/identity.entities.js';
import { IDENTITY_MIGRATIONS_TABLE, IDENTITY_SCHEMA } from '../schema/identity-schema.values.js';
import { identityMigrations } from '../migrations/identity-migrations.js';
import { PostgresRateLimiter } from './postgres-rate-limiter.js';

const KEY = `probe:${'a'.repeat(43)}`;

/** The limiter against a database that stops answering (a TCP proxy in this process freezes it). */
describe('PostgresRateLimiter on a frozen database', () => {
  let testDb: TestDatabase;
  let proxy: TcpProxy;
  let db: OpenDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    proxy = await startTcpProxy(testDb.url);
    db = await openDatabase({
      url: proxy.url,
      entities: [...identityEntities],
      migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
      // No pool-wide query deadline: the limiter's own deadline is what is under test.
      timeouts: { queryMs: 0 },
      pool: testDb.embedded ? { min: 0, max: 1 } : {},
    });
  }, 120_000);

  afterAll(async () => {
    proxy?.thaw();
    await db?.close();
    await proxy?.close();
    await testDb?.close();
  });

  const pool = () =>
    (
      db.orm.em.getConnection() as unknown as {
        getKnex(): { client: { pool: { numUsed(): number; numFree(): number } } };
      }
    ).getKnex().client.pool;

  it('gives up at its deadline and destroys the connection its statement held (it kept it before)', async () => {
    const limiter = new PostgresRateLimiter(db.orm.em, { timeoutMs: 500 });
    const policy = { name: 'probe', limit: 5, windowSeconds: 60 };
    expect(await limiter.consume(policy, KEY, new Date())).toMatchObject({ allowed: true, count: 1 });
    proxy.freeze();
    try {
      const started = Date.now();
      await expect(limiter.consume(policy, KEY, new Date())).rejects.toThrow(/did not answer within 500 ms/);
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(pool().numUsed()).toBe(0);
    } finally {
      proxy.thaw();
    }
    // The destroyed connection is discarded; the next decision runs on a new one.
    expect(await limiter.consume(policy, KEY, new Date())).toMatchObject({ allowed: true });
  });
});
