import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

describe('session routes 1, 8–12 with a passkey session', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp();
  });
  afterEach(async () => identity?.close());

  const unsafe = (test: request.Test, session: { cookie: string; csrfToken: string }) =>
    test.set('cookie', session.cookie).set('origin', TEST_ORIGIN).set('x-csrf-token', session.csrfToken);

  it('GET /me and GET /sessions answer for the caller only, marking the current one', async () => {
    const http = request(identity.app.getHttpServer());
    const first = await seedPasskeySession(identity);
    identity.clock.advance({ minutes: 2 });
    const second = await seedPasskeySession(identity, first.userId);
    const other = await seedPasskeySession(identity);
    const me = await http.get('/identity/v1/me').set('cookie', second.cookie);
    expect(me.body).toEqual({ userId: first.userId, displayName: 'Seeded User', assuranceLevel: 'passkey' });
    const list = await http.get('/identity/v1/sessions').set('cookie', first.cookie);
    expect(list.status).toBe(200);
    expect(new Set(list.body.map((s: { id: string }) => s.id))).toEqual(new Set([second.sessionId, first.sessionId]));
    expect(list.body.find((s: { id: string }) => s.id === first.sessionId)).toMatchObject({
      current: true,
      state: 'active',
      assurance: 'passkey',
      authenticationMethod: 'passkey',
    });
    expect(JSON.stringify(list.body)).not.toContain(other.sessionId);
    expect(JSON.stringify(list.body)).not.toMatch(/digest|csrf/i);
  });

  it('slides the idle expiry at most once per touch interval and expires idle sessions', async () => {
    const http = request(identity.app.getHttpServer());
    const session = await seedPasskeySession(identity);
    identity.clock.advance({ seconds: 30 });
    const early = await http.get('/identity/v1/sessions').set('cookie', session.cookie);
    expect(early.body[0].lastUsedAt).toBe('2026-07-14T08:15:30Z');
    identity.clock.advance({ seconds: 40 });
    const touched = await http.get('/identity/v1/sessions').set('cookie', session.cookie);
    expect(touched.body[0].lastUsedAt).toBe('2026-07-14T08:16:40Z');
    expect(touched.body[0].idleExpiresAt).toBe('2026-07-15T08:16:40Z');
    identity.clock.advance({ hours: 24 });
    const expired = await http.get('/identity/v1/me').set('cookie', session.cookie);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('session_expired');
  });

  it('DELETE /sessions/{id} revokes an own session, hides others as not_found and clears the cookie for the current one', async () => {
    const http = request(identity.app.getHttpServer());
    const mine = await seedPasskeySession(identity);
    const device = await seedPasskeySession(identity, mine.userId);
    const stranger = await seedPasskeySession(identity);
    const foreign = await unsafe(http.delete(`/identity/v1/sessions/${stranger.sessionId}`), mine);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await unsafe(http.delete('/identity/v1/sessions/not-a-uuid'), mine)).body.error.code).toBe(
      'request_invalid',
    );
    const revoked = await unsafe(http.delete(`/identity/v1/sessions/${device.sessionId}`), mine);
    expect(revoked.body).toEqual({ revokedSessionIds: [device.sessionId], clearCurrentCookie: false });
    expect(revoked.headers['set-cookie']).toBeUndefined();
    expect((await http.get('/identity/v1/me').set('cookie', device.cookie)).body.error.code).toBe('session_revoked');
    const self = await unsafe(http.delete(`/identity/v1/sessions/${mine.sessionId}`), mine);
    expect(self.body).toEqual({ revokedSessionIds: [mine.sessionId], clearCurrentCookie: true });
    expect(self.headers['set-cookie']).toEqual([
      '__Host-tessera_session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax',
    ]);
  });

  it('revoke-others keeps the current session through the epoch change; revoke-all ends every session', async () => {
    const http = request(identity.app.getHttpServer());
    const current = await seedPasskeySession(identity);
    const a = await seedPasskeySession(identity, current.userId);
    const b = await seedPasskeySession(identity, current.userId);
    const others = await unsafe(http.post('/identity/v1/sessions/revoke-others'), current);
    expect(others.status).toBe(200);
    expect(new Set(others.body.revokedSessionIds)).toEqual(new Set([a.sessionId, b.sessionId]));
    expect(others.body.clearCurrentCookie).toBe(false);
    expect((await http.get('/identity/v1/me').set('cookie', current.cookie)).status).toBe(200);
    expect((await http.get('/identity/v1/me').set('cookie', a.cookie)).body.error.code).toBe('session_revoked');
    const all = await unsafe(http.post('/identity/v1/sessions/revoke-all'), current);
    expect(all.body).toEqual({ revokedSessionIds: [current.sessionId], clearCurrentCookie: true });
    expect(all.headers['set-cookie']).toEqual([
      '__Host-tessera_session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax',
    ]);
    expect((await http.get('/identity/v1/me').set('cookie', current.cookie)).body.error.code).toBe('session_revoked');
  });

  it('refuses cookie-authenticated mutations without exact Origin and session-bound CSRF token', async () => {
    const http = request(identity.app.getHttpServer());
    const session = await seedPasskeySession(identity);
    const other = await seedPasskeySession(identity);
    for (const test of [
      http.post('/identity/v1/logout').set('cookie', session.cookie),
      http.post('/identity/v1/logout').set('cookie', session.cookie).set('origin', TEST_ORIGIN),
      http
        .post('/identity/v1/logout')
        .set('cookie', session.cookie)
        .set('origin', 'http://evil.example')
        .set('x-csrf-token', session.csrfToken),
      http
        .post('/identity/v1/logout')
        .set('cookie', session.cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', other.csrfToken),
      http
        .post('/identity/v1/logout?csrf=1')
        .set('cookie', session.cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', session.csrfToken),
    ]) {
      const res = await test;
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('csrf_invalid');
    }
    expect((await unsafe(http.post('/identity/v1/logout'), session)).body).toEqual({ ok: true });
  });

  it('rejects a cookie together with a bearer, duplicate session cookies and bearer tokens it cannot resolve', async () => {
    const http = request(identity.app.getHttpServer());
    const session = await seedPasskeySession(identity);
    const both = await http
      .get('/identity/v1/me')
      .set('cookie', session.cookie)
      .set('authorization', 'Bearer abcdefghijklmnopqrstuvwxyz.abc');
    expect(both.body.error.code).toBe('invalid_credentials');
    expect(
      (await http.get('/identity/v1/me').set('cookie', `${session.cookie}; ${session.cookie}`)).body.error.code,
    ).toBe('invalid_credentials');
    expect((await http.get('/identity/v1/me').set('authorization', 'Basic abc')).body.error.code).toBe(
      'invalid_credentials',
    );
    expect((await http.get('/identity/v1/me').set('cookie', '__Host-tessera_session=garbage')).body.error.code).toBe(
      'invalid_credentials',
    );
  });
});
