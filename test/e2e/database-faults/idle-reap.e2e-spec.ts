import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { bootDemoOnDatabase, DEMO_ORIGIN, until, type DemoOnDatabase } from './demo-on-database.js';

/**
 * Issue 11, item 1: the demo's pool closes its idle connection after the idle timeout (30 s by
 * default, 1 s here) and the next connection met the still-prepared session read on embedded
 * PGlite's shared backend session (42P05): every session answered 503 until restart.
 */
describe('the demo after its database connections idle past the pool reap', () => {
  let database: TestDatabase;
  let demo: DemoOnDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    demo = await bootDemoOnDatabase(database.url, { timeouts: { idleMs: 1000 }, pool: { min: 0 } });
  }, 120_000);

  afterAll(async () => {
    await demo?.close();
    await database?.close();
  });

  const me = () => demo.http.get('/identity/v1/me').set('cookie', demo.cookie);

  it('still reads every session after the reap (was 503 service_unavailable until restart)', async () => {
    expect((await me()).body.error.code).toBe('authentication_required');
    for (let cycle = 0; cycle < 2; cycle++) {
      await until(() => demo.pooled() === 0, 5000, 'the idle reap');
      const after = await me();
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('authentication_required');
      const account = await demo.http.get('/account').set('cookie', demo.cookie);
      expect(account.body.error.code).toBe('authentication_required');
      const start = await demo.http.post('/identity/v1/passkeys/authentication/start').set('origin', DEMO_ORIGIN);
      expect(start.status).toBe(200);
      expect((await demo.http.get('/health')).body).toEqual({ status: 'ok', database: 'up' });
    }
  });
});
