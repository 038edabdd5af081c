/**
 * `@tessera/identity-mikro-orm`: the `IdentityStore` adapter on MikroORM 6 + PostgreSQL
 * (embedded PGlite by default): entities and migrations of schema `tessera_identity`, and the
 * shared PostgreSQL rate limiter.
 *
 * @example
 * DatabaseModule.forRoot({
 *   entities: [...identityEntities, ...appEntities],
 *   migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
 * });
 */
export * from './entities/identity.entities.js';
export { identityMigrations } from './migrations/identity-migrations.js';
export * from './schema/identity-migration-checksum.js';
export * from './schema/identity-schema.values.js';
export * from './schema/identity-federation.values.js';
export * from './schema/identity-scim.values.js';
export { PostgresRateLimiter } from './rate-limit/postgres-rate-limiter.js';
export type { PostgresRateLimiterOptions } from './rate-limit/postgres-rate-limiter.js';
export { MikroOrmIdentityStore } from './store/mikro-orm-identity.store.js';
export { IdentityMikroOrmModule } from './identity-mikro-orm.module.js';
export {
  CHANGE_LISTENER_APPLICATION_NAME,
  PostgresIdentityChangeFeed,
} from './notify/postgres-identity-change.feed.js';
export type { PostgresIdentityChangeFeedOptions } from './notify/postgres-identity-change.feed.js';
export { IDENTITY_SESSION_CHANGE_CHANNEL } from './migrations/migration-20261128000000-identity-session-notify.js';
