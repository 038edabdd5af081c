import { randomBytes } from 'node:crypto';
import { knex } from '@mikro-orm/postgresql';
import { startEmbeddedPostgres } from './embedded-postgres.js';

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions {
  /**
   * Server whose database serves as maintenance connection for `CREATE/DROP DATABASE`; without one,
   * an in-memory PGlite copy of the cached template is started.
   *
   * @default process.env.DATABASE_URL
   */
  url?: string;
  /**
   * Prefix of the created database's name (followed by `_<pid>_<random>`).
   *
   * @default 'tessera_t'
   */
  prefix?: string;
}

/** An isolated, empty database for one test file. */
export interface TestDatabase {
  /** URL of the new database; pass it as `url` to `openDatabase`/`DatabaseModule.forRoot`. */
  readonly url: string;
  /** True when backed by embedded PGlite rather than a PostgreSQL server. */
  readonly embedded: boolean;
  /** Drops the database (server) or stops PGlite (embedded); close the ORM first. Idempotent. */
  close(): Promise<void>;
}

/**
 * Gives a test file its own empty database, so Jest workers run in parallel: a fresh
 * `tessera_t_<pid>_<random>` database on the `DATABASE_URL` server (dropped `WITH (FORCE)` on close),
 * or a fresh in-memory PGlite behind its own socket server.
 *
 * @example
 * let testDb: TestDatabase;
 * let db: OpenDatabase;
 * beforeAll(async () => {
 *   testDb = await createTestDatabase();
 *   db = await openDatabase({ url: testDb.url, entities, migrations: { list: migrations } });
 * });
 * afterAll(async () => {
 *   await db.close();
 *   await testDb.close();
 * });
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = options.url ?? process.env.DATABASE_URL;
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres();
    return { url: embedded.url, embedded: true, close: () => embedded.close() };
  }
  const name = `${options.prefix ?? 'tessera_t'}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await maintenance(serverUrl, (db) => db.raw('create database ??', [name]));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let closing: Promise<void> | undefined;
  return {
    url: url.toString(),
    embedded: false,
    close: () =>
      (closing ??= maintenance(serverUrl, (db) => db.raw('drop database if exists ?? with (force)', [name]))),
  };
}

/** Runs one statement on the URL's own database (never on the database being created or dropped). */
async function maintenance(
  url: string,
  statement: (db: ReturnType<typeof knex>) => PromiseLike<unknown>,
): Promise<void> {
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await statement(db);
  } finally {
    await db.destroy();
  }
}
