import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { METRICS_KEY_ENV } from './metrics/metrics.js';

/**
 * `npm start`: the demo on embedded PGlite (data under `.data/pglite`), or on the PostgreSQL server
 * named by `DATABASE_URL`; listens on `PORT` (default 3000).
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const app = await NestFactory.create(AppModule.forRoot({ dataDir: process.env.TESSERA_DATA_DIR ?? '.data/pglite' }));
  app.enableShutdownHooks();
  await app.listen(port);
  const logger = new Logger('Demo');
  const database = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite (.data/pglite)';
  logger.log(`Tessera demo listening on http://localhost:${port} — database: ${database}`);
  if (!process.env[METRICS_KEY_ENV]) logger.log(`GET /metrics answers 401 until ${METRICS_KEY_ENV} is set`);
}

main().catch((error: unknown) => {
  // Startup failures are configuration problems: say what failed, then exit non-zero.
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
