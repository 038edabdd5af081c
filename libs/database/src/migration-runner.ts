import { MikroORM } from '@mikro-orm/core';
import { buildMikroOrmConfig, type DatabaseConfig, type DatabaseOptions } from './mikro-orm.config.js';

/**
 * Applies pending migrations and returns the names applied, in order. Given options, it opens (and
 * afterwards closes) its own connection, starting embedded PGlite when there is no URL; given a
 * `MikroORM` or a built config, it uses that database.
 *
 * @example
 * // apps/demo/src/migrate.ts, run by `npm run migrate` in staging/production
 * const applied = await runMigrations({ entities, migrations: { list: migrations } });
 * console.log(`applied ${applied.length} migration(s)`);
 */
export async function runMigrations(target: MikroORM | DatabaseConfig | DatabaseOptions): Promise<string[]> {
  if (target instanceof MikroORM) return migrateUp(target);
  if (isBuiltConfig(target)) return withOrm(target, migrateUp);
  const handle = await buildMikroOrmConfig(target);
  try {
    return await withOrm(handle.migrationConfig, migrateUp);
  } finally {
    await handle.close();
  }
}

/** Runs `work` with a short-lived ORM (no extra connection stays open while `work` runs migrations). */
async function withOrm<T>(config: DatabaseConfig, work: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init(config);
  try {
    return await work(orm);
  } finally {
    await orm.close(true);
  }
}

async function migrateUp(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}

function isBuiltConfig(target: DatabaseConfig | DatabaseOptions): target is DatabaseConfig {
  return 'driver' in target || 'clientUrl' in target;
}
