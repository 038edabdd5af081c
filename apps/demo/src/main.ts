import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { identityConfigFromEnv, IdentityStartupError } from '@tessera/identity';
import { ManagementListener } from '@tessera/web';
import { AppModule } from './app.module.js';
import { demoEntities } from './database.js';
import { METRICS_KEY_ENV } from './metrics/metrics.js';
import { deployedFromEnv } from './identity/demo-identity.config.js';
import { environmentMarkerAdvice, readEnvironmentMarker } from './identity/demo-identity.provision.js';
import { refuseForeignDatabase } from './startup/environment-guard.js';
import { readStartupFacts, startupHints } from './startup/startup-hints.js';
import { startDemoTelemetry } from './telemetry/demo-telemetry.js';

/**
 * `npm start`: the demo on embedded PGlite (data under `.data/pglite`), or on the PostgreSQL server
 * named by `DATABASE_URL`; listens on `PORT` (default 3000). With `NODE_ENV` `production` or
 * `staging`, the identity configuration comes from environment variables only (docs/deployment.md)
 * and the database must have been migrated and provisioned (`npm run migrate`, `npm run provision`).
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set, traces and metrics go to that OTLP/HTTP collector.
 */
async function main(): Promise<void> {
  const env = process.env;
  const port = Number(env.PORT ?? 3000);
  const dataRoot = env.TESSERA_DATA_DIR ?? '.data';
  const deployed = deployedFromEnv(env);
  // Before the app exists, so the identity platform's tracer and meter are the SDK's.
  const telemetry = startDemoTelemetry(env);
  // Development migrates at start: never against a database provisioned for another environment.
  if (!deployed) await refuseForeignDatabase(env);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({
      dataDir: `${dataRoot}/pglite`,
      port,
      secretsFile: deployed ? undefined : `${dataRoot}/identity-development-secrets.json`,
      env,
      ...(telemetry === undefined ? {} : { telemetry }),
    }),
  );
  app.disable('x-powered-by'); // no framework fingerprint in any answer
  app.enableShutdownHooks();
  await app.listen(port);
  const database = env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite (${dataRoot}/pglite)`;
  const facts = await readStartupFacts(app, {
    listenUrl: `http://localhost:${port}`,
    database,
    deployed,
    metricsKeySet: Boolean(env[METRICS_KEY_ENV]),
    managementAddress: app.get(ManagementListener).address(),
  });
  const logger = new Logger('Demo');
  for (const line of startupHints(facts)) logger.log(line);
}

/** After an `environment_marker` refusal: what the database was provisioned for, and what to do. */
async function explainEnvironmentMarker(): Promise<void> {
  const env = process.env;
  if (!env.DATABASE_URL) return;
  const configured = deployedFromEnv(env) ? identityConfigFromEnv(env) : { environment: 'development' };
  const expected = {
    environment: configured.environment,
    namespace:
      ('storageNamespace' in configured ? configured.storageNamespace : undefined) ??
      `tessera_${configured.environment}`,
  };
  console.error(
    environmentMarkerAdvice(await readEnvironmentMarker({ url: env.DATABASE_URL, entities: demoEntities }), expected),
  );
}

main().catch(async (error: unknown) => {
  // Startup failures are configuration problems: say what failed, then exit non-zero.
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  if (error instanceof IdentityStartupError && error.check === 'environment_marker') {
    await explainEnvironmentMarker().catch(() => undefined);
  }
  process.exit(1);
});
