import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

/**
 * Parses a positive integer command-line option; `undefined` when absent.
 *
 * @example
 * const batchSize = positiveInteger(values['batch-size'], 'batch-size', USAGE);
 */
export function positiveInteger(value: string | undefined, name: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new Error(`--${name} must be a positive integer\n${usage}`);
  return Number(value);
}

/**
 * The `--batch-size` / `--max-batches` options of a batched maintenance command.
 *
 * @example
 * const { batchSize, maxBatches } = batchOptions(USAGE, 1000);
 */
export function batchOptions(usage: string, defaultMaxBatches: number): { batchSize?: number; maxBatches: number } {
  const { values } = parseArgs({ options: { 'batch-size': { type: 'string' }, 'max-batches': { type: 'string' } } });
  const batchSize = positiveInteger(values['batch-size'], 'batch-size', usage);
  const maxBatches = positiveInteger(values['max-batches'], 'max-batches', usage) ?? defaultMaxBatches;
  return batchSize === undefined ? { maxBatches } : { batchSize, maxBatches };
}

/**
 * Parses the command line (`parse`, before anything opens), then runs `work` on a full, never
 * listening demo app over the demo's database (the `DATABASE_URL` server, or the embedded PGlite
 * under `TESSERA_DATA_DIR`, which must not be open in a running demo), prints its result as one
 * JSON line and closes the app; a failure exits 1 with its message.
 *
 * @example
 * runDemoCommand(() => ({}), (app) => app.get(IdentityMaintenance).runOnce());
 */
export function runDemoCommand<T>(parse: () => T, work: (app: INestApplication, args: T) => Promise<unknown>): void {
  const main = async () => {
    const args = parse();
    const dataRoot = process.env.TESSERA_DATA_DIR ?? '.data';
    // A full app: the router's adapter hook needs the HTTP adapter to exist.
    const app = await NestFactory.create(
      AppModule.forRoot({
        dataDir: `${dataRoot}/pglite`,
        port: Number(process.env.PORT ?? 3000),
        secretsFile: `${dataRoot}/identity-development-secrets.json`,
        managementListener: false,
      }),
      { logger: ['error', 'warn'] },
    );
    await app.init();
    try {
      console.log(JSON.stringify(await work(app, args)));
    } finally {
      await app.close();
    }
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
    process.exit(1);
  });
}
