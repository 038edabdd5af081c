import { Module, type DynamicModule } from '@nestjs/common';
import { CoreModule } from '@tessera/core';
import { DatabaseModule } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import { Greeter } from './hello/greeter.service.js';
import { helloRouter } from './hello/hello.router.js';
import { HealthController } from './health/health.controller.js';
import { MetricsController, metricsKeyProvider, metricsRouter } from './metrics/metrics.js';
import { demoEntities, demoMigrations } from './database.js';
import { TodosModule } from './todos/todos.module.js';

/** Where the demo keeps its data and which server it talks to. */
export interface DemoOptions {
  /** PostgreSQL server URL; unset → embedded PGlite. @default process.env.DATABASE_URL */
  databaseUrl?: string;
  /** PGlite data directory (embedded only); unset → in memory. */
  dataDir?: string;
  /** Environment read for the metrics API key. @default process.env */
  env?: NodeJS.ProcessEnv;
}

@Module({ providers: [Greeter], exports: [Greeter] })
class GreeterModule {}

/**
 * The demo application: `/todos` and `/todo-feed` ViewSets persisted with MikroORM, the radix
 * route `GET /hello/:name`, `GET /metrics` (radix) and `GET /metrics/whoami` (controller) behind an
 * API key with `metrics.read`, and `GET /health`.
 */
@Module({})
export class AppModule {
  static forRoot(options: DemoOptions = {}): DynamicModule {
    const startedAt = Date.now();
    const provider = metricsKeyProvider(options.env);
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: options.databaseUrl,
          entities: demoEntities,
          migrations: { list: demoMigrations },
          embedded: options.dataDir === undefined ? {} : { dataDir: options.dataDir },
        }),
        CoreModule.forRoot({ provider }),
        RouterModule.forRoot({
          imports: [GreeterModule],
          routers: [
            { inject: [Greeter], useFactory: (greeter: Greeter) => helloRouter(greeter) },
            { useValue: metricsRouter(provider, startedAt) },
          ],
        }),
        TodosModule,
      ],
      controllers: [HealthController, MetricsController],
    };
  }
}
