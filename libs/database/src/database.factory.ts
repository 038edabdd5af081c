import { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import {
  buildMikroOrmConfig,
  resolveMigrateMode,
  type DatabaseHandle,
  type DatabaseOptions,
} from './mikro-orm.config.js';
import { runMigrations } from './migration-runner.js';

/** An open database: the ORM plus whatever must be shut down with it. */
export interface OpenDatabase {
  readonly orm: MikroORM<PostgreSqlDriver>;
  /** URL the ORM is connected to. */
  readonly url: string;
  /** Closes the ORM, then the embedded server if one was started. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the database outside Nest (scripts, benchmarks, tests): builds the config, applies pending
 * migrations when `migrate` resolves to `'auto'` (through a short-lived ORM without the query
 * bounds), then initialises MikroORM.
 *
 * @example
 * const db = await openDatabase({ entities: [NoteSchema], migrations: { list: migrations } });
 * const em = db.orm.em.fork();
 * await em.insert(NoteSchema, { title: 'hello' });
 * await db.close();
 */
export async function openDatabase(options: DatabaseOptions): Promise<OpenDatabase> {
  const handle = await buildMikroOrmConfig(options);
  let orm: MikroORM<PostgreSqlDriver> | undefined;
  try {
    if (shouldMigrate(options)) await runMigrations(handle.migrationConfig);
    orm = await MikroORM.init<PostgreSqlDriver>(handle.config);
    const opened = orm;
    let closing: Promise<void> | undefined;
    return {
      orm: opened,
      url: handle.url,
      close: () =>
        (closing ??= (async () => {
          try {
            await opened.close(true);
          } finally {
            await handle.close();
          }
        })()),
    };
  } catch (error) {
    await orm?.close(true);
    await handle.close();
    throw error;
  }
}

/**
 * Builds the config, then opens a short-lived ORM that checks entities and connectivity and, in
 * `'auto'` mode, applies pending migrations, so the long-lived ORM (e.g. `DatabaseModule`'s) starts on
 * a current schema and a failure never leaves an embedded server running.
 *
 * @example
 * const handle = await prepareDatabase({ entities, migrations: { list: migrations } });
 * const orm = await MikroORM.init(handle.config);
 */
export async function prepareDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = await buildMikroOrmConfig(options);
  try {
    const orm = await MikroORM.init<PostgreSqlDriver>(handle.migrationConfig);
    try {
      if (shouldMigrate(options)) await runMigrations(orm);
    } finally {
      await orm.close(true);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function shouldMigrate(options: DatabaseOptions): boolean {
  return Boolean(options.migrations?.list.length) && resolveMigrateMode(options) === 'auto';
}
