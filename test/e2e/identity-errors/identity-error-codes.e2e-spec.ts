import { describe, it, expect, beforeAll, afterAll, afterEach, jest } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import request from 'supertest';
import {
  CurrentIdentity,
  EMITTED_IDENTITY_ERROR_CODES,
  IDENTITY_ERROR_CATALOGUE,
  IDENTITY_ERROR_CODES,
  identityErrorBody,
  RequireCapability,
  RequireIdentity,
  RequireRecentPasskey,
  StoreError,
  type IdentityContext,
  type IdentityErrorCode,
  issueSession,
} from '@tessera/identity';
import { MikroORM } from '@mikro-orm/core';
import { IdentityTestRows } from '@tessera/identity-testing';
import { seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import { identityKernelOf, type IdentityKernel } from '../../support/identity-kernel.js';

/**
 * Every emitted code of the envelope table (identity-http §8.1) is produced over HTTP on the real database, each with its fixed status,
 * message and retryability, the request id in body and header, `Cache-Control: no-store` and the
 * JSON content type; the reserved codes never appear in any response.
 */

const START = '2026-07-14T08:15:30Z';
const REQUEST_ID = /^req_[A-Za-z0-9_-]{22}$/;

const RESERVED_CODES: readonly IdentityErrorCode[] = [
  'organization_required',
  'wrong_organization',
  'insufficient_role',
  'insufficient_capability',
  'csrf_required',
];

/** Every response of this file, as the client saw it (status line aside). */
const responses: { headers: Record<string, unknown>; text: string }[] = [];
/** Codes whose envelope was asserted in full. */
const produced = new Set<IdentityErrorCode>();

async function call(test: request.Test): Promise<request.Response> {
  const res = await test;
  responses.push({ headers: res.headers as Record<string, unknown>, text: res.text ?? '' });
  return res;
}

/** The full envelope contract of §8.1 for one response. */
function expectEnvelope(res: request.Response, code: IdentityErrorCode): void {
  const { status, message, retryable } = IDENTITY_ERROR_CATALOGUE[code];
  expect(res.status).toBe(status);
  const requestId = res.headers['x-request-id'] as string | undefined;
  expect(requestId).toBeDefined();
  expect(res.body).toEqual(identityErrorBody(code, requestId));
  expect(res.body).toEqual({ error: { code, message, requestId, retryable } });
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  if (code === 'rate_limited') expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  else expect(res.headers['retry-after']).toBeUndefined();
  produced.add(code);
}

@Controller('host')
class HostController {
  @Get('account')
  @RequireIdentity()
  account(@CurrentIdentity() identity: IdentityContext): { userId: string } {
    return { userId: identity.principal.id };
  }

  @Get('sensitive')
  @RequireRecentPasskey()
  sensitive(): { ok: true } {
    return { ok: true };
  }

  @Get('audit')
  @RequireCapability('audit.read')
  audit(): { ok: true } {
    return { ok: true };
  }
}

const bootstrapBody = (secret: string) => ({
  secret,
  displayName: 'Owner',
  primaryEmail: 'owner@example.com',
  organizationName: 'Acme',
  organizationSlug: 'acme',
});

describe('identity error envelope: each emitted code over HTTP', () => {
  let identity: IdentityTestApp;
  let kernel: IdentityKernel;
  const http = () => request(identity.app.getHttpServer());
  const unsafe = (test: request.Test, session: { cookie: string; csrfToken: string }) =>
    test.set('cookie', session.cookie).set('origin', TEST_ORIGIN).set('x-csrf-token', session.csrfToken);

  beforeAll(async () => {
    identity = await bootIdentityHostApp({ controllers: [HostController], start: START });
    kernel = identityKernelOf(identity.app);
    // Bootstrap needs a completely empty store, so it runs before any session is seeded.
    const bootstrapped = await call(
      request(identity.app.getHttpServer())
        .post('/identity/v1/bootstrap')
        .send(bootstrapBody(identity.bootstrapSecret)),
    );
    expect(bootstrapped.status).toBe(201);
  });
  afterAll(async () => identity?.close());
  afterEach(() => {
    jest.restoreAllMocks();
    identity.clock.set(START);
  });

  it('answers authentication_required to anonymous and restricted callers, on identity and host routes', async () => {
    expectEnvelope(await call(http().get('/identity/v1/me')), 'authentication_required');
    expectEnvelope(await call(http().get('/identity/v1/sessions')), 'authentication_required');
    expectEnvelope(await call(http().post('/identity/v1/sessions/revoke-all')), 'authentication_required');
    expectEnvelope(await call(http().get('/host/account')), 'authentication_required');
    expectEnvelope(await call(http().get('/host/sensitive')), 'authentication_required');
  });

  it('echoes a valid client X-Request-ID in header and body and replaces an invalid one', async () => {
    const echoed = await call(http().get('/identity/v1/me').set('x-request-id', 'trace-1.2:3_A'));
    expectEnvelope(echoed, 'authentication_required');
    expect(echoed.body.error.requestId).toBe('trace-1.2:3_A');
    const replaced = await call(http().get('/identity/v1/me').set('x-request-id', 'bad id <script>'));
    expectEnvelope(replaced, 'authentication_required');
    expect(replaced.body.error.requestId).toMatch(REQUEST_ID);
    expect(replaced.text).not.toContain('script');
  });

  it('answers invalid_credentials for a wrong bootstrap secret, a forged cookie and an unresolvable bearer', async () => {
    expectEnvelope(
      await call(
        http()
          .post('/identity/v1/bootstrap')
          .send(bootstrapBody('w'.repeat(32))),
      ),
      'invalid_credentials',
    );
    const session = await seedPasskeySession(identity);
    const forged = `${session.cookie.slice(0, session.cookie.indexOf('.') + 1)}${'A'.repeat(43)}`;
    expectEnvelope(await call(http().get('/identity/v1/me').set('cookie', forged)), 'invalid_credentials');
    expectEnvelope(
      await call(
        http()
          .get('/identity/v1/me')
          .set('authorization', `Bearer ${'a'.repeat(30)}.${'b'.repeat(10)}`),
      ),
      'invalid_credentials',
    );
    expectEnvelope(
      await call(
        http()
          .get('/identity/v1/me')
          .set('cookie', session.cookie)
          .set('authorization', 'Bearer abcdefghijklmn.opqrstu'),
      ),
      'invalid_credentials',
    );
    // On a host route a failing cookie is resolved as absent; the guard answers the recorded failure.
    expectEnvelope(await call(http().get('/host/account').set('cookie', forged)), 'invalid_credentials');
  });

  it('answers request_invalid for a malformed path id and a malformed JSON body', async () => {
    const session = await seedPasskeySession(identity);
    expectEnvelope(await call(unsafe(http().delete('/identity/v1/sessions/not-a-uuid'), session)), 'request_invalid');
    expectEnvelope(
      await call(http().post('/identity/v1/bootstrap').set('content-type', 'application/json').send('{')),
      'request_invalid',
    );
  });

  it('answers method_not_allowed (405 + Allow) to a known identity path with another method', async () => {
    const res = await call(http().put('/identity/v1/me'));
    expectEnvelope(res, 'method_not_allowed');
    expect(res.headers['allow']).toBe('GET, HEAD');
  });

  it('answers conflict to a second bootstrap with the right secret (already bootstrapped)', async () => {
    const again = await call(
      http()
        .post('/identity/v1/bootstrap')
        .send({
          ...bootstrapBody(identity.bootstrapSecret),
          primaryEmail: 'other@example.com',
          organizationSlug: 'other',
        }),
    );
    expectEnvelope(again, 'conflict');
  });

  it('answers csrf_invalid without the session-bound token and for CSRF query parameters', async () => {
    const session = await seedPasskeySession(identity);
    expectEnvelope(
      await call(http().post('/identity/v1/logout').set('cookie', session.cookie).set('origin', TEST_ORIGIN)),
      'csrf_invalid',
    );
    expectEnvelope(
      await call(
        http()
          .post('/identity/v1/logout')
          .set('cookie', session.cookie)
          .set('origin', 'http://evil.example')
          .set('x-csrf-token', session.csrfToken),
      ),
      'csrf_invalid',
    );
    expectEnvelope(await call(http().get('/identity/v1/me?_csrf=1').set('cookie', session.cookie)), 'csrf_invalid');
  });

  it('answers not_found for a session of another user and for a missing capability on a host route', async () => {
    const mine = await seedPasskeySession(identity);
    const theirs = await seedPasskeySession(identity);
    expectEnvelope(await call(unsafe(http().delete(`/identity/v1/sessions/${theirs.sessionId}`), mine)), 'not_found');
    expectEnvelope(await call(http().get('/host/audit').set('cookie', mine.cookie)), 'not_found');
  });

  it('answers step_up_required on a @RequireRecentPasskey host route for a passkey session older than 5 minutes', async () => {
    const fresh = await seedPasskeySession(identity);
    expect((await call(http().get('/host/sensitive').set('cookie', fresh.cookie))).body).toEqual({ ok: true });
    const stale = await seedPasskeySession(identity, undefined, {
      authenticatedAt: new Date(identity.clock.now().getTime() - 10 * 60_000),
    });
    expectEnvelope(await call(http().get('/host/sensitive').set('cookie', stale.cookie)), 'step_up_required');
  });

  it('answers session_revoked for a revoked session, on identity and host routes', async () => {
    const current = await seedPasskeySession(identity);
    const other = await seedPasskeySession(identity, current.userId);
    const revoked = await call(unsafe(http().delete(`/identity/v1/sessions/${other.sessionId}`), current));
    expect(revoked.status).toBe(200);
    expectEnvelope(await call(http().get('/identity/v1/me').set('cookie', other.cookie)), 'session_revoked');
    expectEnvelope(await call(http().get('/host/account').set('cookie', other.cookie)), 'session_revoked');
  });

  it('answers session_expired once the idle lifetime passed (frozen clock), on identity and host routes', async () => {
    const session = await seedPasskeySession(identity);
    expect((await call(http().get('/identity/v1/me').set('cookie', session.cookie))).status).toBe(200);
    identity.clock.advance({ seconds: kernel.config.lifetimes.sessionIdleSeconds });
    expectEnvelope(await call(http().get('/identity/v1/me').set('cookie', session.cookie)), 'session_expired');
    expectEnvelope(await call(http().get('/host/account').set('cookie', session.cookie)), 'session_expired');
  });

  it('answers rate_limited with Retry-After to the 11th enrollment of a peer within the window', async () => {
    const limit = kernel.config.rateLimits.invitation_enroll;
    if (limit === false) throw new Error('invitation_enroll must be limited in this app');
    const attempt = () =>
      call(
        http()
          .post('/identity/v1/invitations/enroll')
          .send({ token: 'x'.repeat(43), displayName: 'X' }),
      );
    for (let i = 0; i < limit.limit; i++) expectEnvelope(await attempt(), 'invalid_credentials');
    const denied = await attempt();
    expectEnvelope(denied, 'rate_limited');
    expect(denied.headers['retry-after']).toBe(String(limit.windowSeconds));
  });

  it('answers service_unavailable when the store or the limiter fails, without the failure text', async () => {
    const session = await seedPasskeySession(identity);
    jest
      .spyOn(kernel.store, 'findSessionWithUser')
      .mockRejectedValueOnce(new StoreError('unavailable', { message: 'db down: credential-resolution' }));
    const resolving = await call(http().get('/identity/v1/me').set('cookie', session.cookie));
    expectEnvelope(resolving, 'service_unavailable');
    expect(resolving.text).not.toContain('db down');

    jest.spyOn(kernel.rateLimiter, 'consume').mockRejectedValueOnce(new Error('limiter down: cannot decide'));
    const limiting = await call(
      http()
        .post('/identity/v1/invitations/enroll')
        .send({ token: 'y'.repeat(43), displayName: 'Y' }),
    );
    expectEnvelope(limiting, 'service_unavailable');
    expect(limiting.text).not.toContain('limiter down');

    // A store read failing inside a handler maps through identity-model §9.4 (unavailable → 503).
    jest
      .spyOn(kernel.store, 'listSessionsForUser')
      .mockRejectedValueOnce(new StoreError('unavailable', { message: 'db down: session list' }));
    const listing = await call(http().get('/identity/v1/sessions').set('cookie', session.cookie));
    expectEnvelope(listing, 'service_unavailable');
    expect(listing.text).not.toContain('db down');
  });

  it('answers internal_error when a handler meets an unexpected exception, without its text', async () => {
    const session = await seedPasskeySession(identity);
    jest
      .spyOn(kernel.store, 'listSessionsForUser')
      .mockRejectedValueOnce(new TypeError('unexpected: cannot read properties of undefined'));
    const res = await call(http().get('/identity/v1/sessions').set('cookie', session.cookie));
    expectEnvelope(res, 'internal_error');
    expect(res.text).not.toMatch(/unexpected|TypeError|undefined/);
    // The route works again once the failure is gone.
    expect((await call(http().get('/identity/v1/sessions').set('cookie', session.cookie))).status).toBe(200);
  });
  it('answers challenge_invalid to a finish naming an unknown ceremony, and to a replayed one', async () => {
    const unknown = await call(
      http()
        .post('/identity/v1/passkeys/authentication/finish')
        .set('origin', TEST_ORIGIN)
        .send({ ceremonyId: '0190f5a8-1234-7abc-8def-0123456789ab', credential: {} }),
    );
    expectEnvelope(unknown, 'challenge_invalid');
    const start = await call(http().post('/identity/v1/passkeys/authentication/start').set('origin', TEST_ORIGIN));
    expect(start.status).toBe(200);
    const finish = () =>
      call(
        http()
          .post('/identity/v1/passkeys/authentication/finish')
          .set('origin', TEST_ORIGIN)
          .send({ ceremonyId: start.body.ceremonyId, credential: { malformed: true } }),
      );
    expectEnvelope(await finish(), 'request_invalid');
    expectEnvelope(await finish(), 'challenge_invalid');
  });
});

describe('identity error envelope during a real database outage', () => {
  let identity: IdentityTestApp;
  beforeAll(async () => {
    identity = await bootIdentityHostApp({ controllers: [HostController], start: START });
  });
  afterAll(async () => identity?.close());

  it('fails closed with service_unavailable on credential resolution and rate-limited routes once the database is gone', async () => {
    const http = () => request(identity.app.getHttpServer());
    const session = await seedPasskeySession(identity);
    expect((await call(http().get('/identity/v1/me').set('cookie', session.cookie))).status).toBe(200);
    await identity.database.close();
    expectEnvelope(await call(http().get('/identity/v1/me').set('cookie', session.cookie)), 'service_unavailable');
    expectEnvelope(await call(http().get('/host/account').set('cookie', session.cookie)), 'service_unavailable');
    expectEnvelope(
      await call(http().post('/identity/v1/bootstrap').send(bootstrapBody(identity.bootstrapSecret))),
      'service_unavailable',
    );
    expectEnvelope(
      await call(
        http()
          .post('/identity/v1/invitations/enroll')
          .send({ token: 'z'.repeat(43), displayName: 'Z' }),
      ),
      'service_unavailable',
    );
  });
});

describe('identity error envelope: registration_not_allowed', () => {
  it('answers registration_not_allowed to an invitation session when the policy no longer allows invitation registration', async () => {
    const identity = await bootIdentityHostApp({ overrides: { registrationPolicy: 'disabled' }, start: START });
    try {
      const kernel = identityKernelOf(identity.app);
      const rows = new IdentityTestRows(identity.app.get(MikroORM).em);
      const userId = await rows.user({ at: identity.clock.now() });
      const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
        userId,
        assurance: 'recovery',
        authenticationMethod: 'invitation',
        authenticatedAt: identity.clock.now(),
        lifetimes: { idleSeconds: 900, absoluteSeconds: 900 },
      });
      await rows.session(issued.session, { userSessionEpoch: 0 });
      const res = await call(
        request(identity.app.getHttpServer())
          .post('/identity/v1/passkeys/registration/start')
          .set('cookie', `__Host-tessera_session=${issued.cookieToken}`)
          .set('origin', TEST_ORIGIN)
          .set('x-csrf-token', issued.csrfToken),
      );
      expectEnvelope(res, 'registration_not_allowed');
    } finally {
      await identity.close();
    }
  });
});

describe('identity error catalogue coverage', () => {
  it('produced every emitted code, each with its fixed message and retryability', () => {
    expect(EMITTED_IDENTITY_ERROR_CODES).toHaveLength(15);
    expect([...produced].sort()).toEqual([...EMITTED_IDENTITY_ERROR_CODES].sort());
  });

  it('never puts a reserved code in any response of this file', () => {
    expect(IDENTITY_ERROR_CODES.filter((code) => !IDENTITY_ERROR_CATALOGUE[code].emitted)).toEqual(RESERVED_CODES);
    expect(responses.length).toBeGreaterThan(40);
    for (const response of responses) {
      const seen = `${JSON.stringify(response.headers)}\n${response.text}`;
      for (const code of RESERVED_CODES) expect(seen).not.toContain(code);
    }
  });
});
