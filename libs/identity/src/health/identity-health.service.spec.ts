import { describe, expect, it, jest } from '@jest/globals';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { IdentityModuleOptions } from '../identity.module-definition.js';
import type { IdentityService } from '../identity.service.js';
import { createNodeIdentityRuntime } from '../runtime/node-identity.runtime.js';
import type { IdentityRuntime } from '../runtime/identity.runtime.js';
import type { IdentityRateLimiter } from '../store/identity-rate-limiter.port.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { IdentityHealth } from './identity-health.service.js';

type HealthStore = Pick<IdentityStore, 'inspectDatabaseEngine' | 'inspectSchemaVersion'>;

const answering = (): HealthStore => ({
  inspectDatabaseEngine: jest.fn(async () => 'postgresql' as const),
  inspectSchemaVersion: jest.fn(async () => 'current' as const),
});
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
const reachable = (): Pick<IdentityRateLimiter, 'probe'> => ({ probe: async () => undefined });

function health(
  over: {
    store?: HealthStore;
    limiter?: Pick<IdentityRateLimiter, 'probe'>;
    started?: boolean;
    runtime?: IdentityRuntime;
    timeoutMs?: number;
  } = {},
): IdentityHealth {
  const kernel = {
    store: over.store ?? answering(),
    rateLimiter: over.limiter ?? reachable(),
    runtime: over.runtime ?? createNodeIdentityRuntime(),
  } as unknown as IdentityKernel;
  const identity = { started: over.started ?? true } as IdentityService;
  const options = { health: { timeoutMs: over.timeoutMs ?? 150 } } as IdentityModuleOptions;
  return new IdentityHealth(kernel, identity, options);
}

const ALL_OK = { database: 'ok', migrations: 'ok', selfTests: 'ok', rateLimiter: 'ok' };

describe('IdentityHealth', () => {
  it('is live without asking anything', () => {
    const store = answering();
    expect(health({ store }).live()).toEqual({ status: 'live' });
    expect(store.inspectDatabaseEngine).not.toHaveBeenCalled();
  });

  it('is ready when every check passes', async () => {
    expect(await health().ready()).toEqual({ status: 'ready', checks: ALL_OK });
  });

  it('reports timeout for the checks of a database that never answers, and answers anyway', async () => {
    const store: HealthStore = { inspectDatabaseEngine: never, inspectSchemaVersion: never };
    const limiter = { probe: never<void> };
    expect(await health({ store, limiter }).ready()).toEqual({
      status: 'unavailable',
      checks: { database: 'timeout', migrations: 'timeout', selfTests: 'ok', rateLimiter: 'timeout' },
    });
  });

  it('fails migrations on a ledger behind this build or drifted from it', async () => {
    for (const state of ['behind', 'drift'] as const) {
      const store = { ...answering(), inspectSchemaVersion: async () => state };
      expect(await health({ store }).ready()).toEqual({
        status: 'unavailable',
        checks: { ...ALL_OK, migrations: 'failed' },
      });
    }
  });

  it('stays ready on a ledger a newer build extended (rolling deploys keep older instances serving)', async () => {
    const store = { ...answering(), inspectSchemaVersion: async () => 'newer' as const };
    expect(await health({ store }).ready()).toEqual({ status: 'ready', checks: ALL_OK });
  });

  it('turns a rejection into failed without carrying its text into the answer', async () => {
    const secret = 'postgres://tessera:s3cret-password@db/identity';
    const store = { ...answering(), inspectDatabaseEngine: () => Promise.reject(new Error(secret)) };
    const limiter = {
      probe: () => {
        throw new Error(secret);
      },
    };
    const readiness = await health({ store, limiter }).ready();
    expect(readiness.checks).toEqual({ ...ALL_OK, database: 'failed', rateLimiter: 'failed' });
    expect(JSON.stringify(readiness)).not.toContain('s3cret');
  });

  it('fails selfTests until the identity start passed', async () => {
    expect((await health({ started: false }).ready()).checks).toEqual({ ...ALL_OK, selfTests: 'failed' });
  });

  it('fails selfTests when a known-answer test fails now', async () => {
    const runtime = createNodeIdentityRuntime();
    const broken = {
      ...runtime,
      crypto: { ...runtime.crypto, sha256: () => new Uint8Array(32) },
    } as IdentityRuntime;
    expect((await health({ runtime: broken }).ready()).checks.selfTests).toBe('failed');
  });

  it('shares one run between concurrent probes and runs again afterwards', async () => {
    const store = answering();
    const probe = health({ store });
    const [first, second] = await Promise.all([probe.ready(), probe.ready()]);
    expect(first).toBe(second);
    expect(store.inspectDatabaseEngine).toHaveBeenCalledTimes(1);
    await probe.ready();
    expect(store.inspectDatabaseEngine).toHaveBeenCalledTimes(2);
  });

  it('refuses a bound outside 100..30000 ms at startup', () => {
    for (const timeoutMs of [0, 99, 30_001, 1.5]) {
      expect(() => health({ timeoutMs })).toThrow(IdentityConfigError);
    }
    expect(() => health({ timeoutMs: 50 })).toThrow(/health.timeoutMs must be an integer between 100 and 30000/);
  });
});
