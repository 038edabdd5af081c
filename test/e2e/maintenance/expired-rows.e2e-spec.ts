import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { IdentityMaintenance } from '@tessera/identity';
import { bootIdentityApp, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { tenantRows } from '../../support/tenant-seed.js';

const STARTS_PER_ROUND = 40;

describe('maintenance keeps expiring tables bounded (anonymous authentication/start grew challenges forever)', () => {
  let identity: IdentityTestApp;
  let maintenance: IdentityMaintenance;
  beforeAll(async () => {
    identity = await bootIdentityApp();
    maintenance = identity.app.get(IdentityMaintenance);
  });
  afterAll(async () => identity?.close());

  const count = (table: string) => tenantRows(identity).count(table);

  async function startStream(): Promise<void> {
    for (let i = 0; i < STARTS_PER_ROUND; i++) {
      const res = await request(identity.app.getHttpServer())
        .post('/identity/v1/passkeys/authentication/start')
        .set('origin', TEST_ORIGIN)
        .send({});
      expect(res.status).toBe(200);
    }
  }

  it('holds the challenges and rate-limit buckets to one round of starts over rounds past their TTLs', async () => {
    for (let round = 0; round < 5; round++) {
      await startStream();
      expect(await count('challenges')).toBe(STARTS_PER_ROUND);
      expect(await count('rate_limit_buckets')).toBeGreaterThan(0);
      // Past the challenge TTL (300 s) and the limiter window (60 s).
      identity.clock.advance({ seconds: 301 });
      const run = await maintenance.runOnce();
      expect(run).toMatchObject({ acquired: true, hasMore: false });
      expect(run.deleted.challenges).toBe(STARTS_PER_ROUND);
      expect(await count('challenges')).toBe(0);
      expect(await count('rate_limit_buckets')).toBe(0);
    }
  });

  it('never deletes a challenge or a bucket that has not expired', async () => {
    await startStream();
    identity.clock.advance({ seconds: 299 });
    const run = await maintenance.runOnce();
    expect(run.deleted.challenges).toBe(0);
    expect(await count('challenges')).toBe(STARTS_PER_ROUND);
    identity.clock.advance({ seconds: 2 });
    await maintenance.runOnce();
    expect(await count('challenges')).toBe(0);
  });

  it('deletes in bounded batches and reports what is left', async () => {
    await startStream();
    identity.clock.advance({ seconds: 301 });
    const first = await maintenance.runOnce({ batchSize: 7, maxBatches: 2 });
    expect(first).toMatchObject({ acquired: true, batches: 2, hasMore: true });
    expect(first.deleted.challenges).toBe(14);
    expect(await count('challenges')).toBe(STARTS_PER_ROUND - 14);
    const rest = await maintenance.runOnce({ batchSize: 7 });
    expect(rest.hasMore).toBe(false);
    expect(await count('challenges')).toBe(0);
  });
});
