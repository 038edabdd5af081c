import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { METRICS_KEY_ENV } from './metrics/metrics.js';
import { BOOTSTRAP_SECRET_ENV } from './identity/demo-identity.config.js';

/**
 * `npm start`: the demo on embedded PGlite (data under `.data/pglite`), or on the PostgreSQL server
 * named by `DATABASE_URL`; listens on `PORT` (default 3000).
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const dataRoot = process.env.TESSERA_DATA_DIR ?? '.data';
  const app = await NestFactory.create(
    AppModule.forRoot({
      dataDir: `${dataRoot}/pglite`,
      port,
      secretsFile: `${dataRoot}/identity-development-secrets.json`,
    }),
  );
  app.enableShutdownHooks();
  await app.listen(port);
  const logger = new Logger('Demo');
  const database = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite (.data/pglite)';
  logger.log(`Tessera demo listening on http://localhost:${port} — database: ${database}`);
  if (!process.env[METRICS_KEY_ENV]) logger.log(`GET /metrics answers 401 until ${METRICS_KEY_ENV} is set`);
  if (!process.env[BOOTSTRAP_SECRET_ENV]) {
    logger.log(
      `Identity bootstrap is retired: set ${BOOTSTRAP_SECRET_ENV} (16..512 chars) to create the first owner via POST /identity/v1/bootstrap`,
    );
  }
}

main().catch((error: unknown) => {
  // Startup failures are configuration problems: say what failed, then exit non-zero.
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
