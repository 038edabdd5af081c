import { IdentityAudit } from '@tessera/identity';
import { batchOptions, runDemoCommand } from './demo-command.js';

const USAGE = 'usage: node dist/apps/demo/src/audit-purge.js [--batch-size 1..500] [--max-batches <n>]';

/**
 * `npm run audit:purge`: audit retention (identity-model §8.4) for the demo's database. Deletes
 * events older than `audit.retentionDays` in bounded batches (default 250), oldest first, until
 * none remain or `--max-batches` ran, then prints one JSON line `{deletedCount, batches, hasMore}`.
 * Safe to repeat, e.g. from cron.
 */
runDemoCommand(
  () => batchOptions(USAGE, Number.MAX_SAFE_INTEGER),
  async (app, { batchSize, maxBatches }) => {
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
    return { deletedCount, batches, hasMore };
  },
);
