import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TcpProxy } from '@tessera/database';
import {
  bootDemoBehindProxy,
  DEMO_ORIGIN,
  until,
  type DemoBehindProxy,
  type DemoOnDatabase,
} from './demo-on-database.js';

/**
 * Issue 11, item 3: a database that stops answering hung requests for as long as it was frozen
 * (75 s observed). A TCP proxy in the test process stands between the demo (default wait bounds)
 * and the test database — the `DATABASE_URL` server, or embedded PGlite behind its socket.
 */
describe('the demo while its database freezes and thaws', () => {
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

  /** Every DB-backed route of the demo, and its answer while the database answers. */
  const routes = () => ({
    me: () => demo.http.get('/identity/v1/me').set('cookie', demo.cookie),
    clientConfig: () => demo.http.get('/identity/v1/client-config'),
    signInStart: () => demo.http.post('/identity/v1/passkeys/authentication/start').set('origin', DEMO_ORIGIN),
    health: () => demo.http.get('/health'),
    account: () => demo.http.get('/account').set('cookie', demo.cookie),
    todos: () => demo.http.get('/todos'),
  });
  const NORMAL = { me: 401, clientConfig: 200, signInStart: 200, health: 200, account: 401, todos: 200 };
  type Name = keyof typeof NORMAL;

  async function wave(): Promise<Record<Name, { status: number; code: unknown; ms: number }>> {
    const entries = await Promise.all(
      Object.entries(routes()).map(async ([name, send]) => {
        const started = Date.now();
        const res = await send();
        return [
          name,
          { status: res.status, code: res.body?.error?.code ?? res.body?.message, ms: Date.now() - started },
        ];
      }),
    );
    return Object.fromEntries(entries);
  }

  /**
   * `cachedSessions`: the requests in flight when the database froze may resolve their session from
   * the session cache, which stays live until its listener misses a heartbeat (lease 750 ms), and
   * then answer as before the freeze; once the lease ran out every session is read from the store.
   */
  function expectUnavailableWithin3s(answers: Awaited<ReturnType<typeof wave>>, cachedSessions = false): void {
    const sessionRoutes = ['me', 'account'] as const;
    for (const name of sessionRoutes) {
      const unavailable = { name, status: 503, code: 'service_unavailable' };
      const cached = { name, status: NORMAL[name], code: 'authentication_required' };
      expect([unavailable, ...(cachedSessions ? [cached] : [])]).toContainEqual({
        name,
        status: answers[name].status,
        code: answers[name].code,
      });
    }
    for (const name of ['clientConfig', 'signInStart'] as const) {
      expect({ name, status: answers[name].status, code: answers[name].code }).toEqual({
        name,
        status: 503,
        code: 'service_unavailable',
      });
    }
    expect(answers.health).toMatchObject({ status: 503, code: 'Database unavailable' });
    expect(answers.todos.status).toBe(503);
    for (const answer of Object.values(answers)) expect(answer.ms).toBeLessThan(3000);
  }

  it('answers 503 within 3 s on every DB-backed route while frozen and serves again within 5 s of the thaw', async () => {
    const before = await wave();
    expect(Object.fromEntries(Object.entries(before).map(([name, answer]) => [name, answer.status]))).toEqual(NORMAL);

    proxy.freeze();
    // Requests in flight when it froze, then requests arriving once those connections are gone.
    expectUnavailableWithin3s(await wave(), true);
    expectUnavailableWithin3s(await wave());

    const thawed = Date.now();
    proxy.thaw();
    await until(
      async () => {
        const answers = await wave();
        return Object.entries(NORMAL).every(([name, status]) => answers[name as Name].status === status);
      },
      5000,
      'serving normally after the thaw',
    );
    expect(Date.now() - thawed).toBeLessThan(5000);
  });
});
