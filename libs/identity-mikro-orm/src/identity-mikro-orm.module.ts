import { Module, type DynamicModule } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { IdentityRateLimiter, IdentityStore } from '@tessera/identity';
import { PostgresRateLimiter } from './rate-limit/postgres-rate-limiter.js';
import { MikroOrmIdentityStore } from './store/mikro-orm-identity.store.js';

/**
 * Provides `IdentityStore` (the MikroORM/PostgreSQL adapter) and `IdentityRateLimiter` (the
 * shared PostgreSQL limiter) on the application's `EntityManager` from `DatabaseModule`, whose
 * configuration must include `identityEntities` and `identityMigrations`.
 *
 * @example
 * IdentityModule.forRoot({ config, store: IdentityMikroOrmModule.forRoot() })
 */
@Module({})
export class IdentityMikroOrmModule {
  static forRoot(options: { rateLimiterTimeoutMs?: number } = {}): DynamicModule {
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
      ],
      exports: [IdentityStore, IdentityRateLimiter],
    };
  }
}
