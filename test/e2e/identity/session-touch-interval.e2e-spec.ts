import { afterEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';

const me = (identity: IdentityTestApp, cookie: string) =>
  request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', cookie);

describe('lifetimes.touchIntervalSeconds: 0 (every request slides the idle expiry)', () => {
  let identity: IdentityTestApp | undefined;
  afterEach(async () => identity?.close());

  it('answers 200 to 20 concurrent requests on one session (the losers of the touch CAS answered 503)', async () => {
    identity = await bootIdentityApp({ lifetimes: { touchIntervalSeconds: 0 } });
    const session = await seedPasskeySession(identity);
    for (let round = 0; round < 3; round++) {
      identity.clock.advance({ seconds: 1 });
      const answers = await Promise.all(Array.from({ length: 20 }, () => me(identity!, session.cookie)));
      expect(answers.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 200));
    }
  });

  it('still refuses a session revoked while concurrent requests touch it', async () => {
    identity = await bootIdentityApp({ lifetimes: { touchIntervalSeconds: 0 } });
    const session = await seedPasskeySession(identity);
    identity.clock.advance({ seconds: 1 });
    const logout = request(identity.app.getHttpServer())
      .post('/identity/v1/sessions/revoke-all')
      .set('cookie', session.cookie)
      .set('origin', 'http://localhost:3000')
      .set('x-csrf-token', session.csrfToken);
    const answers = await Promise.all([logout, ...Array.from({ length: 10 }, () => me(identity!, session.cookie))]);
    expect(answers[0]!.status).toBe(200);
    for (const res of answers.slice(1)) expect([200, 401]).toContain(res.status);
    const after = await me(identity, session.cookie);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('session_revoked');
  });
});
