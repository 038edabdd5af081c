/**
 * `@tessera/database`: the one place that builds the MikroORM configuration (stock PostgreSQL driver)
 * for every lib and app, against `DATABASE_URL` or an embedded PGlite server.
 */
export { Migration } from '@mikro-orm/migrations';
export type { MigrationObject } from '@mikro-orm/core';
export {
  DATABASE_HANDLE,
  DATABASE_MODULE_OPTIONS,
  DatabaseFeatureModule,
  DatabaseModule,
  DatabaseRequestContextMiddleware,
  type DatabaseModuleAsyncOptions,
  type DatabaseModuleOptions,
} from './database.module.js';
export { InjectRepository, getRepositoryToken, type RepositoryEntity } from './database.repositories.js';
export {
  causeChain,
  classifyDatabaseFailure,
  findDatabaseFailure,
  sqlStateFailure,
  type DatabaseFailure,
  type DatabaseFailureKind,
} from './database-errors.js';
export { openDatabase, prepareDatabase, type OpenDatabase } from './database.factory.js';
export {
  isEmbeddedPostgresUrl,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './embedded-postgres.js';
export { DEFAULT_DATABASE_TIMEOUTS, abortConnection, type DatabaseTimeouts } from './database.timeouts.js';
export { runMigrations } from './migration-runner.js';
export {
  EMBEDDED_POOL,
  buildMikroOrmConfig,
  resolveMigrateMode,
  type DatabaseConfig,
  type DatabaseEntities,
  type DatabaseHandle,
  type DatabaseMigrationsOptions,
  type DatabaseOptions,
} from './mikro-orm.config.js';
export { loadPgliteTemplate, pgliteTemplateDir } from './pglite-template.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './test-database.js';
