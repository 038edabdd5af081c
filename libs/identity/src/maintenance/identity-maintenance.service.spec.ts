import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { FrozenClock } from '../runtime/frozen.clock.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { ExpiredRowsPurge } from '../store/identity-maintenance.port.js';
import type { StoreResult } from '../store/identity-store.port.js';
import { IdentityMaintenance } from './identity-maintenance.service.js';

const NONE = {
  challenges: 0,
  rateLimitBuckets: 0,
  externalReplayReceipts: 0,
  federationTransactions: 0,
  deviceGrants: 0,
  deviceTokenFamilies: 0,
  deviceSealedSuccessors: 0,
};
const batch = (over: Partial<ExpiredRowsPurge> = {}): StoreResult<ExpiredRowsPurge> => ({
  ok: true,
  value: { acquired: true, deleted: NONE, hasMore: false, ...over },
});

function maintenanceWith(
  purge: () => Promise<StoreResult<ExpiredRowsPurge>>,
  over: { intervalSeconds?: number; maxBatchesPerRun?: number } = {},
) {
  const calls: { before: Date; batchSize: number }[] = [];
  const kernel = {
    config: { maintenance: { intervalSeconds: 300, batchSize: 500, maxBatchesPerRun: 3, ...over } },
    runtime: { clock: new FrozenClock('2026-07-14T08:15:30Z') },
    store: {
      purgeExpiredRows: (input: { before: Date; batchSize: number }) => {
        calls.push(input);
        return purge();
      },
    },
  } as unknown as IdentityKernel;
  return { maintenance: new IdentityMaintenance(kernel), calls };
}

describe('IdentityMaintenance', () => {
  it('batches until nothing is left, at most maxBatchesPerRun, adding up what each batch deleted', async () => {
    const deleted = { ...NONE, challenges: 500, rateLimitBuckets: 2 };
    const { maintenance, calls } = maintenanceWith(async () => batch({ deleted, hasMore: true }));
    const run = await maintenance.runOnce();
    expect(run).toEqual({
      acquired: true,
      batches: 3,
      deleted: { ...NONE, challenges: 1500, rateLimitBuckets: 6 },
      hasMore: true,
    });
    expect(calls.map((call) => [call.before.toISOString(), call.batchSize])).toEqual(
      Array.from({ length: 3 }, () => ['2026-07-14T08:15:30.000Z', 500]),
    );
  });

  it('does nothing when another instance holds the maintenance lock', async () => {
    const { maintenance, calls } = maintenanceWith(async () => batch({ acquired: false }));
    expect(await maintenance.runOnce()).toEqual({ acquired: false, batches: 0, deleted: NONE, hasMore: false });
    expect(calls).toHaveLength(1);
  });

  it('fails a run with service_unavailable when the store fails', async () => {
    const { maintenance } = maintenanceWith(async () => ({ ok: false, code: 'unavailable' }));
    await expect(maintenance.runOnce()).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  describe('the timer', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('runs every intervalSeconds on an unref’d timer and stops on application shutdown', async () => {
      const { maintenance, calls } = maintenanceWith(async () => batch());
      maintenance.onApplicationBootstrap();
      expect(calls).toHaveLength(0);
      expect(jest.getTimerCount()).toBe(1);
      await jest.advanceTimersByTimeAsync(300_000);
      expect(calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(calls).toHaveLength(3);
      await maintenance.onApplicationShutdown();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(900_000);
      expect(calls).toHaveLength(3);
    });

    it('never keeps the process alive on its own', () => {
      const setInterval = jest.spyOn(globalThis, 'setInterval');
      const { maintenance } = maintenanceWith(async () => batch());
      maintenance.onApplicationBootstrap();
      const timer = setInterval.mock.results[0]!.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      setInterval.mockRestore();
      return maintenance.onApplicationShutdown();
    });

    it('starts no timer with intervalSeconds 0', () => {
      const { maintenance } = maintenanceWith(async () => batch(), { intervalSeconds: 0 });
      maintenance.onApplicationBootstrap();
      expect(jest.getTimerCount()).toBe(0);
    });

    it('skips a tick while the previous run is still going, and logs a failed run without details', async () => {
      let release: (result: StoreResult<ExpiredRowsPurge>) => void = () => undefined;
      const { maintenance, calls } = maintenanceWith(() => new Promise((resolve) => (release = resolve)));
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      maintenance.onApplicationBootstrap();
      await jest.advanceTimersByTimeAsync(300_000);
      await jest.advanceTimersByTimeAsync(300_000);
      expect(calls).toHaveLength(1);
      release({ ok: false, code: 'unavailable' });
      await jest.advanceTimersByTimeAsync(0);
      expect(warn).toHaveBeenCalledWith('identity maintenance run failed (store unavailable); retrying next interval');
      await maintenance.onApplicationShutdown();
      warn.mockRestore();
    });
  });
});
