import { parseArgs } from 'node:util';
import { IdentityMaintenance } from '@tessera/identity';
import { positiveInteger, runDemoCommand } from './demo-command.js';

const USAGE = 'usage: node dist/apps/demo/src/maintenance.js [--batch-size 1..5000] [--max-batches <n>]';

/**
 * `npm run maintenance`: one run of the identity maintenance task for the demo's database: expired
 * challenges, rate-limit buckets, replay receipts and federation transactions deleted in bounded
 * batches under the maintenance advisory lock, until none remain or `--max-batches` ran (default
 * 1000). Prints one JSON line `{acquired, batches, deleted, hasMore}`. The running demo does the
 * same every `maintenance.intervalSeconds`; this is for cron or a deployment with the timer off.
 */
const OPTIONS = { 'batch-size': { type: 'string' }, 'max-batches': { type: 'string' } } as const;

runDemoCommand(
  () => {
    const { values } = parseArgs({ options: OPTIONS });
    return {
      batchSize: positiveInteger(values['batch-size'], 'batch-size', USAGE),
      maxBatches: positiveInteger(values['max-batches'], 'max-batches', USAGE) ?? 1000,
    };
  },
  (app, { batchSize, maxBatches }) =>
    app.get(IdentityMaintenance).runOnce({ maxBatches, ...(batchSize === undefined ? {} : { batchSize }) }),
);
