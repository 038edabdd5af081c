import { Module, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { CoreModule } from '@tessera/core';
import { DatabaseModule, type DatabaseOptions } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import { Greeter } from './hello/greeter.service.js';
import { helloRouter } from './hello/hello.router.js';
import { HealthController } from './health/health.controller.js';
import { managementFromEnv } from './health/management.config.js';
import { MetricsController, metricsKeyProvider, metricsRouter } from './metrics/metrics.js';
import { demoEntities, demoMigrations } from './database.js';
import { TodosModule } from './todos/todos.module.js';
import { IdentityModule, resolveIdentityConfig } from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
import { AccountController } from './account/account.controller.js';
import { demoIdentity, deployedFromEnv, developmentOutbox } from './identity/demo-identity.config.js';
import { PagesModule } from './pages/pages.module.js';
import { apiDocsRouter } from './pages/api-docs.router.js';
import { packagePublishers, packagesOrganization, PackagesModule } from './packages/packages.module.js';
import type { DemoTelemetry } from './telemetry/demo-telemetry.js';

/** Where the demo keeps its data and which server it talks to. */
export interface DemoOptions {
  /** PostgreSQL server URL; unset → embedded PGlite (development only). @default env.DATABASE_URL */
  databaseUrl?: string;
  /** PGlite data directory (embedded only); unset → in memory. */
  dataDir?: string;
  /**
   * Environment read for the metrics API key, the management listener (`TESSERA_MANAGEMENT_PORT`,
   * `TESSERA_MANAGEMENT_HOST`), the database URL and the identity configuration:
   * with `NODE_ENV` `production` or `staging` the identity configuration comes from it entirely
   * (`identityConfigFromEnv`) and migrations are left to `npm run migrate`. @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /** Port the identity configuration's `publicBaseUrl` names. @default 3000 */
  port?: number;
  /** Where generated development identity secrets are kept; unset → fresh ones per start. */
  secretsFile?: string;
  /** Connection pool and wait bounds of the database. @default {} (the `@tessera/database` defaults) */
  database?: Pick<DatabaseOptions, 'pool' | 'timeouts'>;
  /**
   * Start the management listener `TESSERA_MANAGEMENT_PORT` asks for; one-off commands (`npm run
   * maintenance`, …) pass `false`, so they never compete with the running server for its port.
   * @default true
   */
  managementListener?: boolean;
  /** The OpenTelemetry SDK `main.ts` started (`OTEL_EXPORTER_OTLP_ENDPOINT`): shut down with the app. @default none */
  telemetry?: DemoTelemetry;
}

@Module({ providers: [Greeter], exports: [Greeter] })
class GreeterModule {}

/**
 * The demo application: `/todos` and `/todo-feed` ViewSets persisted with MikroORM, the radix
 * route `GET /hello/:name`, `GET /metrics` (radix) and `GET /metrics/whoami` (controller) behind an
 * API key with `metrics.read`, `GET /health`, the operator probes `GET /live` and `GET /ready`
 * (with `GET /metrics` on the management listener when `TESSERA_MANAGEMENT_PORT` is set), and the
 * identity platform (`/identity/v1/...`,
 * development mode) with `GET /account` guarded by `@RequireIdentity()`, and
 * `/orgs/:organizationId/packages` whose `POST` needs the application grant `package.publish`,
 * and a landing page at `GET /`. Development by default; production/staging from environment
 * variables when `NODE_ENV` says so (docs/deployment.md).
 */
@Module({})
export class AppModule {
  static forRoot(options: DemoOptions = {}): DynamicModule {
    const startedAt = Date.now();
    const env = options.env ?? process.env;
    const provider = metricsKeyProvider(env);
    const identity = demoIdentity(options.port ?? 3000, options.secretsFile, env);
    const deployed = deployedFromEnv(env);
    // Development: invitations are "sent" to an outbox page instead of an SMTP server.
    const outbox = deployed ? undefined : developmentOutbox(options.secretsFile);
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: options.databaseUrl ?? env.DATABASE_URL,
          entities: demoEntities,
          migrations: { list: demoMigrations },
          // Production/staging start only on a schema `npm run migrate` brought to this build's version.
          migrate: deployed ? 'manual' : 'auto',
          embedded: options.dataDir === undefined ? {} : { dataDir: options.dataDir },
          ...options.database,
        }),
        CoreModule.forRoot({ provider }),
        RouterModule.forRoot({
          imports: [GreeterModule],
          routers: [{ inject: [Greeter], useFactory: (greeter: Greeter) => helloRouter(greeter) }],
          management: options.managementListener === false ? undefined : managementFromEnv(env),
        }),
        // With TESSERA_MANAGEMENT_PORT, `/metrics` moves to the management listener beside `/live` and `/ready`.
        RouterModule.forFeature({
          name: 'Metrics',
          listener: 'management',
          routers: [{ useValue: metricsRouter(provider, startedAt) }],
        }),
        IdentityModule.forRoot({
          ...identity,
          store: IdentityMikroOrmModule.forRoot(),
          capabilityResolvers: [packagePublishers],
          organizationSelector: packagesOrganization,
          ...(outbox === undefined ? {} : { notificationSink: outbox }),
        }),
        TodosModule,
        PackagesModule,
        PagesModule.forRoot({ outbox }),
        // The API reference exists exactly when the identity document is served (option `openApi`).
        RouterModule.forFeature({
          name: 'ApiDocs',
          routers: [{ useValue: apiDocsRouter({ enabled: resolveIdentityConfig(identity.config).openApi }) }],
        }),
      ],
      controllers: [HealthController, MetricsController, AccountController],
      providers: telemetryLifecycle(options.telemetry),
    };
  }
}

/** Flushes the telemetry SDK (bounded) once the app has shut down. */
function telemetryLifecycle(telemetry: DemoTelemetry | undefined): Provider[] {
  if (telemetry === undefined) return [];
  return [
    {
      provide: 'TesseraDemoTelemetryLifecycle',
      useFactory: (): OnApplicationShutdown => ({ onApplicationShutdown: () => telemetry.shutdown() }),
    },
  ];
}
