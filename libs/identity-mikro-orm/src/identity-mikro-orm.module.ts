import { Module, type DynamicModule } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { IdentityChangeFeed, IdentityRateLimiter, IdentityStore } from '@tessera/identity';
import {
  PostgresIdentityChangeFeed,
  type PostgresIdentityChangeFeedOptions,
} from './notify/postgres-identity-change.feed.js';
import { PostgresRateLimiter } from './rate-limit/postgres-rate-limiter.js';
import { MikroOrmIdentityStore } from './store/mikro-orm-identity.store.js';

/**
 * Provides `IdentityStore` (the MikroORM/PostgreSQL adapter), `IdentityRateLimiter` (the shared
 * PostgreSQL limiter) and `IdentityChangeFeed` (session and user change notices for the session
 * cache: `LISTEN` on a dedicated connection) on the application's `EntityManager` from
 * `DatabaseModule`, whose configuration must include `identityEntities` and `identityMigrations`.
 *
 * @example
 * IdentityModule.forRoot({ config, store: IdentityMikroOrmModule.forRoot() })
 */
@Module({})
export class IdentityMikroOrmModule {
  static forRoot(
    options: { rateLimiterTimeoutMs?: number; changeFeed?: PostgresIdentityChangeFeedOptions } = {},
  ): DynamicModule {
    return {
      module: IdentityMikroOrmModule,
      providers: [
        {
          provide: IdentityStore,
          inject: [EntityManager],
          useFactory: (em: EntityManager) => new MikroOrmIdentityStore(em),
        },
        {
          provide: IdentityRateLimiter,
          inject: [EntityManager],
          useFactory: (em: EntityManager) => new PostgresRateLimiter(em, { timeoutMs: options.rateLimiterTimeoutMs }),
        },
        {
          provide: IdentityChangeFeed,
          inject: [EntityManager],
          useFactory: (em: EntityManager) => new PostgresIdentityChangeFeed(em, options.changeFeed),
        },
      ],
      exports: [IdentityStore, IdentityRateLimiter, IdentityChangeFeed],
    };
  }
}
