import type { StoreResult } from './identity-store.port.js';

/** The tables whose rows expire and are purged by the maintenance task. */
export type ExpiringRows =
  | 'challenges'
  | 'rateLimitBuckets'
  | 'externalReplayReceipts'
  | 'federationTransactions'
  | 'deviceGrants'
  | 'deviceTokenFamilies'
  | 'deviceSealedSuccessors';

/** Outcome of one maintenance batch. */
export interface ExpiredRowsPurge {
  /** `false` when another instance held the maintenance lock: nothing was done. */
  readonly acquired: boolean;
  /** Rows deleted per table in this batch. */
  readonly deleted: Readonly<Record<ExpiringRows, number>>;
  /** `true` when some table may hold more expired rows (a full batch was deleted). */
  readonly hasMore: boolean;
}

/** Housekeeping of expiring rows (identity-model §9: nothing grows without bound). */
export interface IdentityMaintenanceCommands {
  /**
   * One bounded batch in one transaction, under a transaction-scoped PostgreSQL advisory lock that
   * one instance holds at a time (try-lock: a busy lock answers `acquired: false` at once):
   * deletes at most `batchSize` rows of each expiring table whose expiry is at or before `before`
   * — challenges in any state, rate-limit buckets whose window ended, external replay receipts,
   * federation transactions, device grants never exchanged (with their code reservations), device
   * token families past their absolute expiry (with their tokens, reservations and grant) — and
   * clears the sealed successors of refresh tokens whose retry window ended
   * (`deviceSealedSuccessors` counts those tokens). Safe to repeat.
   *
   * @example
   * const batch = await store.purgeExpiredRows({ before: clock.now(), batchSize: 500 });
   */
  purgeExpiredRows(input: { before: Date; batchSize: number }): Promise<StoreResult<ExpiredRowsPurge>>;
}
