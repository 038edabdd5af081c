import { describe, it, expect, afterEach } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { refusedWithin } from '../../support/session-polling.js';
import { bootIdentityApp, seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

/** A write made behind the app's back, as another process (or an operator) would make it. */
async function revokeBehindTheAppsBack(identity: IdentityTestApp, sessionId: string): Promise<void> {
  await identity.app
    .get(MikroORM)
    .em.fork()
    .getConnection()
    .execute(
      `update tessera_identity.sessions set state = 'revoked', revoked_at = now(), revoked_reason = 'logout', version = version + 1 where id = ?`,
      [sessionId],
    );
}

const me = (identity: IdentityTestApp, cookie: string) =>
  request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', cookie);

const ON_SERVER = Boolean(process.env.DATABASE_URL);

describe(`lifetimes.sessionCacheSeconds (the session read cache, on by default; ${ON_SERVER ? 'PostgreSQL' : 'PGlite'})`, () => {
  let identity: IdentityTestApp | undefined;
  afterEach(async () => identity?.close());

  it(`is on by default, and sees a write made around the app ${ON_SERVER ? 'within moments (NOTIFY)' : 'within its 5 s bound'}`, async () => {
    identity = await bootIdentityApp();
    const session = await seedPasskeySession(identity);
    expect((await me(identity, session.cookie)).status).toBe(200);
    await revokeBehindTheAppsBack(identity, session.sessionId);
    const { last } = await refusedWithin(() => me(identity!, session.cookie), ON_SERVER ? 2000 : 6500);
    expect([last.status, last.body.error?.code]).toEqual([401, 'session_revoked']);
  });

  it('never serves a write made around the app past the configured bound', async () => {
    identity = await bootIdentityApp({ lifetimes: { sessionCacheSeconds: 1 } });
    const session = await seedPasskeySession(identity);
    expect((await me(identity, session.cookie)).status).toBe(200);
    await revokeBehindTheAppsBack(identity, session.sessionId);
    const { last } = await refusedWithin(() => me(identity!, session.cookie), 1500);
    expect([last.status, last.body.error?.code]).toEqual([401, 'session_revoked']);
  });

  it('is off with 0 s: a write made around the app is refused by the very next request', async () => {
    identity = await bootIdentityApp({ lifetimes: { sessionCacheSeconds: 0 } });
    const session = await seedPasskeySession(identity);
    expect((await me(identity, session.cookie)).status).toBe(200);
    await revokeBehindTheAppsBack(identity, session.sessionId);
    const res = await me(identity, session.cookie);
    expect([res.status, res.body.error?.code]).toEqual([401, 'session_revoked']);
  });

  it("sees this process's own revocations at once", async () => {
    identity = await bootIdentityApp({ lifetimes: { sessionCacheSeconds: 5 } });
    const session = await seedPasskeySession(identity);
    const other = await seedPasskeySession(identity, session.userId);
    expect((await me(identity, other.cookie)).status).toBe(200);
    const revoked = await request(identity.app.getHttpServer())
      .post('/identity/v1/sessions/revoke-all')
      .set('cookie', session.cookie)
      .set('origin', TEST_ORIGIN)
      .set('x-csrf-token', session.csrfToken);
    expect(revoked.status).toBe(200);
    expect((await me(identity, other.cookie)).status).toBe(401);
    expect((await me(identity, session.cookie)).status).toBe(401);
  });

  it('checks the token digest and the expiry on every request, cached or not', async () => {
    identity = await bootIdentityApp({ lifetimes: { sessionCacheSeconds: 5 } });
    const session = await seedPasskeySession(identity);
    expect((await me(identity, session.cookie)).status).toBe(200);
    const [name, token] = session.cookie.split('=') as [string, string];
    const forged = `${name}=${token.slice(0, 37)}${token[37] === 'A' ? 'B' : 'A'}${token.slice(38)}`;
    const wrong = await me(identity, forged);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    identity.clock.advance({ days: 2 });
    const expired = await me(identity, session.cookie);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('session_expired');
  });
});
