import { createTestDatabase, openDatabase } from '@tessera/database';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
  MikroOrmIdentityStore,
  PostgresRateLimiter,
} from '@tessera/identity-mikro-orm';
import { runIdentityStoreConformance } from '@tessera/identity-testing';

/**
 * The store conformance suite against `MikroOrmIdentityStore`: on embedded PGlite (one pooled
 * connection, so races are serialized) or, with DATABASE_URL, on a fresh database of that
 * PostgreSQL server (races are real).
 *
 * The concurrency cases queue `concurrency` transactions on one row lock. With the production
 * bounds (lock 1 s, acquire 2 s) the last of them fails `unavailable` when the machine is busy
 * (CI runs this beside the other suites on two cores), which measures the machine, not the
 * semantics these cases check. The bounds themselves are proven by `test/e2e/database-faults`.
 */
const CONFORMANCE_TIMEOUTS = { acquireMs: 20_000, lockMs: 20_000, statementMs: 25_000, queryMs: 30_000 };

runIdentityStoreConformance({
  name: `MikroOrmIdentityStore on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`,
  concurrency: 12,
  createStore: async () => {
    const testDb = await createTestDatabase();
    try {
      const db = await openDatabase({
        url: testDb.url,
        timeouts: CONFORMANCE_TIMEOUTS,
        entities: [...identityEntities],
        migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
      });
      return {
        store: new MikroOrmIdentityStore(db.orm),
        em: db.orm.em,
        close: async () => {
          await db.close();
          await testDb.close();
        },
      };
    } catch (error) {
      await testDb.close();
      throw error;
    }
  },
  createRateLimiter: (harness) => new PostgresRateLimiter(harness.em),
});
