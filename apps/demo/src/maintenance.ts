import { IdentityMaintenance } from '@tessera/identity';
import { batchOptions, runDemoCommand } from './demo-command.js';

const USAGE = 'usage: node dist/apps/demo/src/maintenance.js [--batch-size 1..5000] [--max-batches <n>]';

/**
 * `npm run maintenance`: one run of the identity maintenance task for the demo's database: expired
 * challenges, rate-limit buckets, replay receipts and federation transactions deleted in bounded
 * batches under the maintenance advisory lock, until none remain or `--max-batches` ran (default
 * 1000). Prints one JSON line `{acquired, batches, deleted, hasMore}`. The running demo does the
 * same every `maintenance.intervalSeconds`; this is for cron or a deployment with the timer off.
 */
runDemoCommand(
  () => batchOptions(USAGE, 1000),
  (app, { batchSize, maxBatches }) =>
    app.get(IdentityMaintenance).runOnce({ maxBatches, ...(batchSize === undefined ? {} : { batchSize }) }),
);
