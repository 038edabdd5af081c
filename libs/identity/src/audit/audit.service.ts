import { Inject, Injectable } from '@nestjs/common';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { IDENTITY_KERNEL } from '../identity.tokens.js';
import type { AuditPurgeResult } from '../store/identity-invitation-audit.port.js';

const DAY_MS = 86_400_000;
/** Bounds of one purge batch (identity-model §8.4). */
const BATCH_SIZE_RANGE = [1, 500] as const;

/** Options of {@link IdentityAudit.purgeExpired}. */
export interface AuditPurgeOptions {
  /**
   * Most events deleted by this call, 1..500.
   *
   * @default config.limits.auditPurgeBatchSize (250)
   */
  readonly batchSize?: number;
}

/**
 * Audit retention (identity-model §8.4): deletes events whose `occurredAt` is strictly before
 * now − `audit.retentionDays`, oldest first, one bounded batch per call, safe to repeat (a
 * scheduler or `npm run audit:purge` calls it until `hasMore` is `false`).
 *
 * @example
 * let result;
 * do result = await app.get(IdentityAudit).purgeExpired();
 * while (result.hasMore);
 */
@Injectable()
export class IdentityAudit {
  constructor(@Inject(IDENTITY_KERNEL) private readonly kernel: IdentityKernel) {}

  /** One bounded batch; `RangeError` for a batch size outside 1..500, 503 when the store fails. */
  async purgeExpired(options: AuditPurgeOptions = {}): Promise<AuditPurgeResult> {
    const { config, runtime, store } = this.kernel;
    const batchSize = options.batchSize ?? config.limits.auditPurgeBatchSize;
    if (!Number.isSafeInteger(batchSize) || batchSize < BATCH_SIZE_RANGE[0] || batchSize > BATCH_SIZE_RANGE[1]) {
      throw new RangeError(`audit purge batch size must be an integer in ${BATCH_SIZE_RANGE.join('..')}`);
    }
    const before = new Date(runtime.clock.now().getTime() - config.audit.retentionDays * DAY_MS);
    try {
      return await store.purgeAuditEvents({ before, batchSize });
    } catch (cause) {
      throw new IdentityError('service_unavailable', { cause });
    }
  }
}
