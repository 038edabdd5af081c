import {
  Global,
  Inject,
  Injectable,
  Module,
  RequestMethod,
  type DynamicModule,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestMiddleware,
  type NestModule,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { EntityManager, MikroORM, RequestContext } from '@mikro-orm/core';
import { MikroORM as PostgreSqlMikroORM, SqlEntityManager, type PostgreSqlDriver } from '@mikro-orm/postgresql';
import { prepareDatabase } from './database.factory.js';
import { repositoryProviders, type RepositoryEntity } from './database.repositories.js';
import type { DatabaseHandle, DatabaseOptions } from './mikro-orm.config.js';

/** Options of {@link DatabaseModule.forRoot}. */
export interface DatabaseModuleOptions extends DatabaseOptions {
  /**
   * Fork a fresh EntityManager per HTTP request (MikroORM `RequestContext` middleware on every route).
   * The context lives in an `AsyncLocalStorage`, which on Node 20 turns on promise hooks for the
   * whole process (a few per cent of CPU on promise-heavy routes): an application whose handlers
   * never use the `EntityManager` (the identity routes use their own store connections) can turn
   * it off.
   *
   * @default true
   */
  registerRequestContext?: boolean;
}

/** Options of {@link DatabaseModule.forRootAsync}. */
export interface DatabaseModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers to inject into `useFactory`, e.g. a config service. */
  inject?: any[];
  useFactory: (...args: any[]) => DatabaseModuleOptions | Promise<DatabaseModuleOptions>;
}

/** Injection token of the {@link DatabaseHandle} (built config and embedded server) behind the ORM. */
export const DATABASE_HANDLE = Symbol('tessera:database-handle');
/** Injection token of the resolved {@link DatabaseModuleOptions}. */
export const DATABASE_MODULE_OPTIONS = Symbol('tessera:database-module-options');

/** Runs the rest of the request inside a `RequestContext`, so `EntityManager` resolves to a per-request fork. */
@Injectable()
export class DatabaseRequestContextMiddleware implements NestMiddleware {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  use(_request: unknown, _response: unknown, next: () => void): void {
    RequestContext.create(this.orm.em, next);
  }
}

const ormProviders: Provider[] = [
  {
    provide: DATABASE_HANDLE,
    useFactory: (options: DatabaseModuleOptions) => prepareDatabase(options),
    inject: [DATABASE_MODULE_OPTIONS],
  },
  {
    provide: MikroORM,
    useFactory: async (handle: DatabaseHandle) => {
      try {
        return await PostgreSqlMikroORM.init<PostgreSqlDriver>(handle.config);
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    inject: [DATABASE_HANDLE],
  },
  { provide: PostgreSqlMikroORM, useExisting: MikroORM },
  { provide: EntityManager, useFactory: (orm: MikroORM) => orm.em, inject: [MikroORM] },
  { provide: SqlEntityManager, useExisting: EntityManager },
];

/**
 * The single place the application's MikroORM is configured: PostgreSQL from `DATABASE_URL` or embedded
 * PGlite, pending migrations applied at start in `'auto'` mode, ORM then embedded server closed on
 * shutdown. The module is global: `MikroORM` and `EntityManager` (core, or `SqlEntityManager`/
 * `EntityManager` from `@mikro-orm/postgresql`) are injectable everywhere.
 *
 * @example
 * // imports of the application's root module
 * imports: [
 *   DatabaseModule.forRoot({ entities: [NoteSchema], migrations: { list: migrations }, embedded: { dataDir: '.data/pglite' } }),
 *   DatabaseModule.forFeature([NoteSchema]),
 * ]
 */
@Global()
@Module({})
export class DatabaseModule implements NestModule, OnApplicationShutdown {
  constructor(
    @Inject(DATABASE_MODULE_OPTIONS) private readonly options: DatabaseModuleOptions,
    @Inject(DATABASE_HANDLE) private readonly handle: DatabaseHandle,
    @Inject(MikroORM) private readonly orm: MikroORM,
  ) {}

  /** Configures the database from static options. */
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return DatabaseModule.forRootAsync({ useFactory: () => options });
  }

  /** Configures the database from options produced by a factory (e.g. reading a config service). */
  static forRootAsync(options: DatabaseModuleAsyncOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: options.imports ?? [],
      providers: [
        { provide: DATABASE_MODULE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        ...ormProviders,
        DatabaseRequestContextMiddleware,
      ],
      exports: [DATABASE_HANDLE, MikroORM, PostgreSqlMikroORM, EntityManager, SqlEntityManager],
    };
  }

  /** Repositories for `entities`, injectable with {@link InjectRepository} (tokens as in `@mikro-orm/nestjs`). */
  static forFeature(entities: RepositoryEntity[]): DynamicModule {
    const providers = repositoryProviders(entities);
    return { module: DatabaseFeatureModule, providers, exports: providers };
  }

  configure(consumer: MiddlewareConsumer): void {
    if (this.options.registerRequestContext === false) return;
    consumer.apply(DatabaseRequestContextMiddleware).forRoutes({ path: '{*all}', method: RequestMethod.ALL });
  }

  /** Closes the ORM first, then the embedded server it talks to (global modules shut down last). */
  async onApplicationShutdown(): Promise<void> {
    try {
      await this.orm.close(true);
    } finally {
      await this.handle.close();
    }
  }
}

/** Host of the repository providers of one {@link DatabaseModule.forFeature} call. */
@Module({})
export class DatabaseFeatureModule {}
