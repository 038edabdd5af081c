import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, startTcpProxy, type TcpProxy, type TestDatabase } from '@tessera/database';
import { bootDemoOnDatabase, until, type DemoOnDatabase } from './demo-on-database.js';

/** The demo's readiness bound (`health.timeoutMs` default) plus slack for the answer itself. */
const WITHIN_BOUND_MS = 3000;

/**
 * Issue 17, item 7 ("a person can use it over time"): `/ready` answers 503 within its bound while
 * the database is frozen or gone, never hangs, and answers 200 again once the database is back;
 * `/live` keeps answering 200 throughout, since it touches no database.
 */
describe('the readiness probe while the database freezes, stops and comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let demo: DemoOnDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy(database.url);
    demo = await bootDemoOnDatabase(proxy.url, { pool: database.embedded ? { min: 0, max: 1 } : {} });
  }, 120_000);

  afterAll(async () => {
    proxy?.thaw();
    await proxy?.restart();
    await demo?.close();
    await proxy?.close();
    await database?.close();
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
