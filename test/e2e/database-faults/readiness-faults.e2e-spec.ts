import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TcpProxy } from '@tessera/database';
import { bootDemoBehindProxy, until, type DemoBehindProxy, type DemoOnDatabase } from './demo-on-database.js';

/** The demo's readiness bound (`health.timeoutMs` default) plus slack for the answer itself. */
const WITHIN_BOUND_MS = 3000;

/**
 * Issue 17, item 7 ("a person can use it over time"): `/ready` answers 503 within its bound while
 * the database is frozen or gone, never hangs, and answers 200 again once the database is back;
 * `/live` keeps answering 200 throughout, since it touches no database.
 */
describe('the readiness probe while the database freezes, stops and comes back', () => {
  let setup: DemoBehindProxy;
  let proxy: TcpProxy;
  let demo: DemoOnDatabase;

  beforeAll(async () => {
    setup = await bootDemoBehindProxy();
    ({ proxy, demo } = setup);
  }, 120_000);

  afterAll(async () => {
    await setup?.close();
  });

  async function probe(path: '/live' | '/ready') {
    const started = Date.now();
    const res = await demo.http.get(path).timeout(10_000);
    return { status: res.status, body: res.body as Record<string, unknown>, ms: Date.now() - started };
  }

  async function expectUnavailableWithinBound(): Promise<void> {
    const [ready, live] = await Promise.all([probe('/ready'), probe('/live')]);
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    const checks = ready.body.checks as Record<string, string>;
    expect(['timeout', 'failed']).toContain(checks.database);
    expect(checks.selfTests).toBe('ok');
    expect(ready.ms).toBeLessThan(WITHIN_BOUND_MS);
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'live' } });
  }

  async function expectReadyAgainWithin(ms: number): Promise<void> {
    await until(async () => (await probe('/ready')).status === 200, ms, '/ready answering 200 again');
    expect((await probe('/ready')).body).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', selfTests: 'ok', rateLimiter: 'ok' },
    });
  }

  it('is ready before any fault', async () => {
    expect((await probe('/ready')).status).toBe(200);
  });

  it('answers 503 within the bound while frozen (twice) and 200 again after the thaw', async () => {
    proxy.freeze();
    await expectUnavailableWithinBound();
    await expectUnavailableWithinBound();
    proxy.thaw();
    await expectReadyAgainWithin(10_000);
  }, 60_000);

  it('answers 503 within the bound while the database is gone and 200 again once it is back', async () => {
    await proxy.stop();
    await expectUnavailableWithinBound();
    await expectUnavailableWithinBound();
    await proxy.restart();
    await expectReadyAgainWithin(10_000);
  }, 60_000);
});
