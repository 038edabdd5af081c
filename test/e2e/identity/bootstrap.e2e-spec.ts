import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { bootIdentityApp, sessionCookieOf, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

const BODY = {
  displayName: 'Ada Lovelace',
  primaryEmail: 'ada@example.com',
  organizationName: 'Analytical Engines',
  organizationSlug: 'engines',
};

async function count(app: IdentityTestApp, table: string): Promise<number> {
  const orm = app.app.get(MikroORM);
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>(`select count(*)::int as n from tessera_identity.${table}`);
  return Number(rows[0]!.n);
}

describe('POST /identity/v1/bootstrap (route 46)', () => {
  let identity: IdentityTestApp;
  beforeAll(async () => {
    // The bootstrap limit (5 per 15 min) has its own test below; here attempts must reach the route.
    identity = await bootIdentityApp({ rateLimits: { bootstrap: false } });
  });
  afterAll(async () => identity?.close());

  it('refuses a wrong secret with 401 invalid_credentials and writes nothing', async () => {
    const res = await request(identity.app.getHttpServer())
      .post('/identity/v1/bootstrap')
      .send({ ...BODY, secret: 'x'.repeat(32) });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({
      code: 'invalid_credentials',
      message: 'Authentication failed',
      requestId: expect.stringMatching(/^req_/),
      retryable: false,
    });
    expect(res.headers['x-request-id']).toBe(res.body.error.requestId);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(await count(identity, 'users')).toBe(0);
    expect(await count(identity, 'audit_events')).toBe(0);
  });

  it('rejects malformed bodies with request_invalid, echoing nothing', async () => {
    for (const body of [
      '{',
      JSON.stringify({ ...BODY, secret: identity.bootstrapSecret, extra: 1 }),
      JSON.stringify({ ...BODY, secret: identity.bootstrapSecret, organizationSlug: 'Bad Slug' }),
    ]) {
      const res = await request(identity.app.getHttpServer())
        .post('/identity/v1/bootstrap')
        .set('content-type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('request_invalid');
      expect(res.text).not.toContain(identity.bootstrapSecret);
    }
  });

  it('creates the owner, organization and a 15-minute restricted session once; concurrent attempts have one winner', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(identity.app.getHttpServer())
          .post('/identity/v1/bootstrap')
          .send({ ...BODY, secret: identity.bootstrapSecret }),
      ),
    );
    const winners = attempts.filter((res) => res.status === 201);
    expect(winners).toHaveLength(1);
    for (const loser of attempts.filter((res) => res.status !== 201)) expect(loser.body.error.code).toBe('conflict');
    const res = winners[0]!;
    expect(res.body).toEqual({
      userId: expect.any(String),
      organization: expect.objectContaining({
        name: 'Analytical Engines',
        slug: 'engines',
        state: 'active',
        version: 0,
      }),
      ownerMembership: expect.objectContaining({ role: 'owner', state: 'active', userId: res.body.userId }),
      sessionId: expect.any(String),
      idleExpiresAt: '2026-07-14T08:30:30Z',
      absoluteExpiresAt: '2026-07-14T08:30:30Z',
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
      c.startsWith('__Host-tessera_session='),
    )!;
    expect(cookie).toMatch(
      /^__Host-tessera_session=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax$/,
    );
    expect(res.text).not.toContain(identity.bootstrapSecret);
    expect(res.text).not.toContain(sessionCookieOf(res.headers)!);
    expect(await count(identity, 'users')).toBe(1);
    expect(await count(identity, 'sessions')).toBe(1);
  });

  it('lets the restricted session only log out, and logout needs CSRF', async () => {
    const boot = await request(identity.app.getHttpServer())
      .post('/identity/v1/bootstrap')
      .send({ ...BODY, secret: identity.bootstrapSecret });
    expect(boot.status).toBe(409);
    const fresh = await bootIdentityApp();
    try {
      const http = request(fresh.app.getHttpServer());
      const created = await http.post('/identity/v1/bootstrap').send({ ...BODY, secret: fresh.bootstrapSecret });
      const cookie = `__Host-tessera_session=${sessionCookieOf(created.headers)}`;
      expect(created.status).toBe(201);
      expect((await http.get('/identity/v1/me').set('cookie', cookie)).body.error.code).toBe('authentication_required');
      expect((await http.get('/identity/v1/sessions').set('cookie', cookie)).body.error.code).toBe(
        'authentication_required',
      );
      expect(
        (
          await http
            .post('/identity/v1/sessions/revoke-all')
            .set('cookie', cookie)
            .set('origin', TEST_ORIGIN)
            .set('x-csrf-token', created.body.csrfToken)
        ).status,
      ).toBe(401);
      expect((await http.post('/identity/v1/logout').set('cookie', cookie)).body.error.code).toBe('csrf_invalid');
      const logout = await http
        .post('/identity/v1/logout')
        .set('cookie', cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', created.body.csrfToken);
      expect(logout.status).toBe(200);
      expect(logout.body).toEqual({ ok: true });
      expect(logout.headers['set-cookie']).toEqual([
        '__Host-tessera_session=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax',
      ]);
      const after = await http
        .post('/identity/v1/logout')
        .set('cookie', cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', created.body.csrfToken);
      expect(after.body.error.code).toBe('session_revoked');
      // A stale cookie never blocks anonymous routes.
      expect((await http.get('/identity/v1/client-config').set('cookie', cookie)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('expires the restricted session at 15 minutes (frozen clock)', async () => {
    const fresh = await bootIdentityApp();
    try {
      const http = request(fresh.app.getHttpServer());
      const created = await http.post('/identity/v1/bootstrap').send({ ...BODY, secret: fresh.bootstrapSecret });
      const cookie = `__Host-tessera_session=${sessionCookieOf(created.headers)}`;
      fresh.clock.advance({ minutes: 15 });
      const res = await http
        .post('/identity/v1/logout')
        .set('cookie', cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', created.body.csrfToken);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('session_expired');
    } finally {
      await fresh.close();
    }
  });

  it('serves client-config without secrets, with bootstrap available only on an empty store', async () => {
    const res = await request(identity.app.getHttpServer()).get('/identity/v1/client-config');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.features).toEqual({
      bootstrap: false,
      administrativeRecovery: false,
      federation: true,
      scim: true,
    });
    expect(res.body.device).toEqual({ verificationUri: `${TEST_ORIGIN}/device` });
    expect(res.text).not.toMatch(/secret|pepper|password|private|digest/);
  });
});

describe('bootstrap rate limit (5 per 15 min per peer)', () => {
  it('denies the 6th attempt with 429 and Retry-After before the secret is compared', async () => {
    const limited = await bootIdentityApp();
    try {
      const http = request(limited.app.getHttpServer());
      for (let i = 0; i < 5; i++)
        expect((await http.post('/identity/v1/bootstrap').send({ ...BODY, secret: 'y'.repeat(20) })).status).toBe(401);
      const denied = await http.post('/identity/v1/bootstrap').send({ ...BODY, secret: limited.bootstrapSecret });
      expect(denied.status).toBe(429);
      expect(denied.body.error.code).toBe('rate_limited');
      expect(denied.headers['retry-after']).toBe('900');
      limited.clock.advance({ minutes: 15 });
      expect(
        (await http.post('/identity/v1/bootstrap').send({ ...BODY, secret: limited.bootstrapSecret })).status,
      ).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('bootstrap when retired', () => {
  it('answers 404 not_found', async () => {
    const retired = await bootIdentityApp({ bootstrap: { lifecycle: 'retired' } });
    try {
      const res = await request(retired.app.getHttpServer())
        .post('/identity/v1/bootstrap')
        .send({ ...BODY, secret: 'x'.repeat(20) });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await retired.close();
    }
  });
});
