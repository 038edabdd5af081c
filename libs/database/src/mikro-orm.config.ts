import type { MigrationObject, PoolConfig } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import {
  isEmbeddedPostgresUrl,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './embedded-postgres.js';
import {
  DEFAULT_DATABASE_TIMEOUTS,
  guardedPool,
  serverTimeoutOptions,
  type DatabaseTimeouts,
} from './database.timeouts.js';

/** MikroORM options for the stock PostgreSQL driver, as built by {@link buildMikroOrmConfig}. */
export type DatabaseConfig = Options;

/** Entities as MikroORM takes them: `EntitySchema`/`defineEntity` results or decorated classes. */
export type DatabaseEntities = NonNullable<Options['entities']>;

/** Where and how migrations are recorded. */
export interface DatabaseMigrationsOptions {
  /** Migrations in execution order, e.g. `[{ name: 'Migration20250101_init', class: Migration20250101 }]`. */
  list: MigrationObject[];
  /**
   * Table recording applied migrations.
   *
   * @default 'mikro_orm_migrations'
   */
  tableName?: string;
  /**
   * Schema of that table.
   *
   * @default the connection schema (`public`)
   */
  schema?: string;
  /**
   * Do not log each applied migration.
   *
   * @default true under Jest (`NODE_ENV=test`), false otherwise
   */
  silent?: boolean;
}

/** Options shared by {@link buildMikroOrmConfig}, {@link openDatabase}, `runMigrations` and `DatabaseModule`. */
export interface DatabaseOptions {
  /**
   * PostgreSQL server URL; when empty an embedded PGlite server is started instead (pass `''` to
   * force embedded even when `DATABASE_URL` is set).
   *
   * @default process.env.DATABASE_URL
   */
  url?: string;
  /** Entities of every lib/app sharing this database. */
  entities: DatabaseEntities;
  /** Migrations; omit for a database whose schema is managed elsewhere. */
  migrations?: DatabaseMigrationsOptions;
  /**
   * `'auto'` applies pending migrations when the database is opened (development, test);
   * `'manual'` leaves it to a `migrate` script calling `runMigrations` (staging, production).
   *
   * @default 'manual' when NODE_ENV is 'production' or 'staging', 'auto' otherwise
   */
  migrate?: 'auto' | 'manual';
  /**
   * Default schema of the entities.
   *
   * @default 'public'
   */
  schema?: string;
  /**
   * Log SQL queries.
   *
   * @default false
   */
  debug?: boolean;
  /**
   * Embedded server settings, used when there is no `url`.
   *
   * @default {} (in memory)
   */
  embedded?: EmbeddedPostgresOptions;
  /**
   * Connection pool settings, merged over the defaults: {@link EMBEDDED_POOL} for an embedded server
   * (started here, or by `createTestDatabase` in this process), the knex defaults for a real server;
   * then over the pool settings of `timeouts`. `max: 1` marks a single-connection pool: each new
   * connection first resets the server session (what an embedded server needs, a no-op elsewhere).
   *
   * @default {}
   */
  pool?: PoolConfig;
  /**
   * Bounds on every database wait (acquire, connect, server statement and lock timeouts, client
   * query deadline, idle close); migrations run without the statement, lock and query bounds.
   *
   * @default DEFAULT_DATABASE_TIMEOUTS
   */
  timeouts?: DatabaseTimeouts;
  /**
   * Any other MikroORM option, applied last.
   *
   * @default {}
   */
  mikroOrm?: Partial<Options>;
}

/** A built configuration and the embedded server it may have started. */
export interface DatabaseHandle {
  /** Options for `MikroORM.init` or `MikroOrmModule`. */
  readonly config: DatabaseConfig;
  /** The same options without the statement, lock and query bounds, for running migrations. */
  readonly migrationConfig: DatabaseConfig;
  /** URL the ORM connects to. */
  readonly url: string;
  /** The embedded server, when one was started. */
  readonly embedded?: EmbeddedPostgres;
  /** Stops the embedded server (close the ORM first); no-op for a PostgreSQL server. */
  close(): Promise<void>;
}

/**
 * PGlite runs one transaction at a time and all socket connections share its single session: a
 * second connection used while another holds a transaction waits forever. One pooled connection
 * turns that mistake (e.g. querying through another fork inside `em.transactional`) into a quick
 * `Timeout acquiring a connection` error instead of a hang. `max: 2` measured ~25% more throughput
 * but hangs forever on that mistake once both connections are open.
 */
export const EMBEDDED_POOL: Readonly<PoolConfig> = Object.freeze({ min: 0, max: 1 });

/**
 * Builds the MikroORM configuration (stock PostgreSQL driver, Migrator, explicit entities), starting
 * embedded PGlite when no server URL is given.
 *
 * @example
 * const db = await buildMikroOrmConfig({ entities: [NoteSchema], migrations: { list: migrations } });
 * const orm = await MikroORM.init(db.config);
 * // ...
 * await orm.close();
 * await db.close();
 */
export async function buildMikroOrmConfig(options: DatabaseOptions): Promise<DatabaseHandle> {
  const serverUrl = options.url ?? process.env.DATABASE_URL;
  const embedded = serverUrl ? undefined : await startEmbeddedPostgres(options.embedded);
  const url = serverUrl || embedded!.url;
  const isEmbedded = embedded !== undefined || isEmbeddedPostgresUrl(url);
  const migrations = options.migrations;
  const tableName = migrations?.tableName ?? 'mikro_orm_migrations';
  const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
  const pool = { ...(isEmbedded ? EMBEDDED_POOL : {}), ...options.pool };
  const build = (bounds: Required<DatabaseTimeouts>) =>
    defineConfig({
      driver: PostgreSqlDriver,
      clientUrl: url,
      entities: options.entities,
      ...(options.schema ? { schema: options.schema } : {}),
      debug: options.debug ?? false,
      discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
      extensions: [Migrator],
      migrations: {
        migrationsList: migrations?.list ?? [],
        tableName: migrations?.schema ? `${migrations.schema}.${tableName}` : tableName,
        transactional: true,
        allOrNothing: true,
        disableForeignKeys: false,
        snapshot: false,
        silent: migrations?.silent ?? process.env.NODE_ENV === 'test',
      },
      pool: guardedPool(bounds, pool),
      driverOptions: { connection: serverTimeoutOptions(bounds) },
      ...options.mikroOrm,
    });
  const config = build(timeouts);
  const migrationConfig = build({ ...timeouts, statementMs: 0, lockMs: 0, queryMs: 0 });
  return { config, migrationConfig, url, embedded, close: async () => embedded?.close() };
}

/** Resolves {@link DatabaseOptions.migrate} against NODE_ENV. */
export function resolveMigrateMode(options: Pick<DatabaseOptions, 'migrate'>): 'auto' | 'manual' {
  if (options.migrate) return options.migrate;
  return ['production', 'staging'].includes(process.env.NODE_ENV ?? '') ? 'manual' : 'auto';
}
