import type { ExpiredRowsPurge, ExpiringRows, IdentityMaintenanceCommands } from '@tessera/identity';
import { table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import {
  clearEndedRetryWindows,
  purgeExpiredDeviceGrants,
  purgeExpiredDeviceTokenFamilies,
} from './identity-device.maintenance.js';

/** The tables purged by one `delete … where <expired>`. */
type PlainExpiringRows = 'challenges' | 'rateLimitBuckets' | 'externalReplayReceipts' | 'federationTransactions';

/** The advisory-lock key of the maintenance task (any constant; shared by every instance). */
const MAINTENANCE_LOCK = 7_361_042_918;

/** Per table: the expiry predicate over the row (`?` = the cutoff). */
const EXPIRING: Readonly<Record<PlainExpiringRows, { table: string; expired: string }>> = {
  challenges: { table: 'challenges', expired: 'expires_at <= ?' },
  rateLimitBuckets: {
    table: 'rate_limit_buckets',
    expired: 'window_start + make_interval(secs => window_seconds) <= ?',
  },
  externalReplayReceipts: { table: 'external_replay_receipts', expired: 'expires_at <= ?' },
  federationTransactions: { table: 'federation_transactions', expired: 'expires_at <= ?' },
};

const NONE: Record<ExpiringRows, number> = {
  challenges: 0,
  rateLimitBuckets: 0,
  externalReplayReceipts: 0,
  federationTransactions: 0,
  deviceGrants: 0,
  deviceTokenFamilies: 0,
  deviceSealedSuccessors: 0,
};

/**
 * The maintenance command: bounded deletes of expired rows, one short transaction per batch.
 * Rows another transaction holds are skipped (`skip locked`), so a purge never waits on a
 * ceremony or a limiter update, and a concurrent instance's batch never blocks this one.
 *
 * @example
 * const batch = await new IdentityMaintenanceCommandHandlers(gateway).purgeExpiredRows({ before, batchSize: 500 });
 */
export class IdentityMaintenanceCommandHandlers implements IdentityMaintenanceCommands {
  constructor(private readonly gateway: StoreGateway) {}

  purgeExpiredRows(
    input: Parameters<IdentityMaintenanceCommands['purgeExpiredRows']>[0],
  ): ReturnType<IdentityMaintenanceCommands['purgeExpiredRows']> {
    const { before, batchSize } = input;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1)
      return Promise.reject(new RangeError('maintenance batch size must be positive'));
    return this.gateway.command(async (sql): Promise<ExpiredRowsPurge> => {
      const [lock] = await sql('select pg_try_advisory_xact_lock(?::bigint) as acquired', [MAINTENANCE_LOCK]);
      if (lock?.['acquired'] !== true) return { acquired: false, deleted: NONE, hasMore: false };
      const deleted = { ...NONE };
      for (const key of Object.keys(EXPIRING) as PlainExpiringRows[])
        deleted[key] = await purge(sql, key, before, batchSize);
      deleted.deviceTokenFamilies = await purgeExpiredDeviceTokenFamilies(sql, before, batchSize);
      deleted.deviceGrants = await purgeExpiredDeviceGrants(sql, before, batchSize);
      deleted.deviceSealedSuccessors = await clearEndedRetryWindows(sql, before, batchSize);
      return { acquired: true, deleted, hasMore: Object.values(deleted).some((count) => count >= batchSize) };
    });
  }
}

async function purge(sql: Sql, key: PlainExpiringRows, before: Date, batchSize: number): Promise<number> {
  const { table: name, expired } = EXPIRING[key];
  const [row] = await sql(
    `with gone as (
       delete from ${table(name)} where ctid in (
         select ctid from ${table(name)} where ${expired} limit ? for update skip locked)
       returning 1)
     select count(*)::int as deleted from gone`,
    [before, batchSize],
  );
  return Number(row?.['deleted'] ?? 0);
}
