import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { IDENTITY_KERNEL } from '../identity.tokens.js';
import type { ExpiringRows } from '../store/identity-maintenance.port.js';

/** Options of one {@link IdentityMaintenance.runOnce}. */
export interface MaintenanceRunOptions {
  /** @default config.maintenance.batchSize */
  readonly batchSize?: number;
  /** Batches at most; the run stops earlier once nothing is left. @default config.maintenance.maxBatchesPerRun */
  readonly maxBatches?: number;
}

/** What one run did. */
export interface MaintenanceRun {
  /** `false` when another instance held the maintenance lock (this run did nothing). */
  readonly acquired: boolean;
  readonly batches: number;
  readonly deleted: Readonly<Record<ExpiringRows, number>>;
  /** `true` when the run stopped at `maxBatches` with expired rows left. */
  readonly hasMore: boolean;
}

/**
 * Purges expired rows (challenges, rate-limit buckets, replay receipts, federation transactions)
 * in bounded batches under one PostgreSQL advisory lock (identity-model §9). Every instance runs it
 * every `maintenance.intervalSeconds` on an unref'd timer that stops with the application; one
 * instance at a time does the work, the others find the lock taken and skip the tick.
 * `npm run maintenance` runs it once.
 *
 * @example
 * const run = await app.get(IdentityMaintenance).runOnce({ maxBatches: 100 });
 */
@Injectable()
export class IdentityMaintenance implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdentityMaintenance');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(@Inject(IDENTITY_KERNEL) private readonly kernel: IdentityKernel) {}

  /**
   * Batches until nothing expired is left, the lock is taken elsewhere or `maxBatches` ran; 503
   * (`IdentityError`) when the store fails.
   */
  async runOnce(options: MaintenanceRunOptions = {}): Promise<MaintenanceRun> {
    const { config, runtime, store } = this.kernel;
    const batchSize = options.batchSize ?? config.maintenance.batchSize;
    const maxBatches = options.maxBatches ?? config.maintenance.maxBatchesPerRun;
    const deleted: Record<ExpiringRows, number> = {
      challenges: 0,
      rateLimitBuckets: 0,
      externalReplayReceipts: 0,
      federationTransactions: 0,
      deviceGrants: 0,
      deviceTokenFamilies: 0,
      deviceSealedSuccessors: 0,
    };
    let batches = 0;
    let hasMore = true;
    while (hasMore && batches < maxBatches) {
      const batch = await store.purgeExpiredRows({ before: runtime.clock.now(), batchSize });
      if (!batch.ok) throw new IdentityError('service_unavailable');
      if (!batch.value.acquired) return { acquired: false, batches, deleted, hasMore: false };
      batches++;
      for (const key of Object.keys(deleted) as ExpiringRows[]) deleted[key] += batch.value.deleted[key];
      hasMore = batch.value.hasMore;
    }
    return { acquired: true, batches, deleted, hasMore };
  }

  onApplicationBootstrap(): void {
    const seconds = this.kernel.config.maintenance.intervalSeconds;
    if (seconds === 0) return;
    this.timer = setInterval(() => this.tick(), seconds * 1000);
    // The timer never keeps the process alive on its own.
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One timed run; a run still going (a slow database) makes this tick a no-op. */
  private tick(): void {
    if (this.running !== undefined) return;
    this.running = this.runOnce()
      .catch(() => this.logger.warn('identity maintenance run failed (store unavailable); retrying next interval'))
      .finally(() => (this.running = undefined));
  }
}
