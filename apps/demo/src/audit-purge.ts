import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { IdentityAudit } from '@tessera/identity';
import { AppModule } from './app.module.js';

const USAGE = 'usage: node dist/apps/demo/src/audit-purge.js [--batch-size 1..500] [--max-batches <n>]';

/** Parses a positive integer option; `undefined` when absent. */
function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
  return Number(value);
}

/**
 * `npm run audit:purge`: audit retention (identity-model §8.4) for the demo's database (the
 * `DATABASE_URL` server, or the embedded PGlite under `TESSERA_DATA_DIR`, which must not be open in
 * a running demo). Deletes events older than `audit.retentionDays` in bounded batches (default
 * 250), oldest first, until none remain or `--max-batches` ran, then prints one JSON line
 * `{deletedCount, batches, hasMore}`. Safe to repeat, e.g. from cron.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'batch-size': { type: 'string' }, 'max-batches': { type: 'string' } } });
  const batchSize = positiveInteger(values['batch-size'], 'batch-size');
  const maxBatches = positiveInteger(values['max-batches'], 'max-batches') ?? Number.MAX_SAFE_INTEGER;
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
    const audit = app.get(IdentityAudit);
    let deletedCount = 0;
    let batches = 0;
    let hasMore = true;
    while (hasMore && batches < maxBatches) {
      const result = await audit.purgeExpired(batchSize === undefined ? {} : { batchSize });
      deletedCount += result.deletedCount;
      hasMore = result.hasMore;
      batches++;
    }
    console.log(JSON.stringify({ deletedCount, batches, hasMore }));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
