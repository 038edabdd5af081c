import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { IdentityMaintenance } from '@tessera/identity';
import { AppModule } from './app.module.js';

const USAGE = 'usage: node dist/apps/demo/src/maintenance.js [--batch-size 1..5000] [--max-batches <n>]';

/** Parses a positive integer option; `undefined` when absent. */
function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
  return Number(value);
}

/**
 * `npm run maintenance`: one run of the identity maintenance task for the demo's database (the
 * `DATABASE_URL` server, or the embedded PGlite under `TESSERA_DATA_DIR`, which must not be open
 * in a running demo): expired challenges, rate-limit buckets, replay receipts and federation
 * transactions deleted in bounded batches under the maintenance advisory lock, until none remain
 * or `--max-batches` ran (default 1000). Prints one JSON line `{acquired, batches, deleted, hasMore}`.
 * The running demo does the same every `maintenance.intervalSeconds`; this is for cron or a
 * deployment with the timer off.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'batch-size': { type: 'string' }, 'max-batches': { type: 'string' } } });
  const batchSize = positiveInteger(values['batch-size'], 'batch-size');
  const maxBatches = positiveInteger(values['max-batches'], 'max-batches') ?? 1000;
  const dataRoot = process.env.TESSERA_DATA_DIR ?? '.data';
  // A full (never listening) app: the router's adapter hook needs the HTTP adapter to exist.
  const app = await NestFactory.create(
    AppModule.forRoot({
      dataDir: `${dataRoot}/pglite`,
      port: Number(process.env.PORT ?? 3000),
      secretsFile: `${dataRoot}/identity-development-secrets.json`,
    }),
    { logger: ['error', 'warn'] },
  );
  await app.init();
  try {
    const run = await app
      .get(IdentityMaintenance)
      .runOnce({ maxBatches, ...(batchSize === undefined ? {} : { batchSize }) });
    console.log(JSON.stringify(run));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
