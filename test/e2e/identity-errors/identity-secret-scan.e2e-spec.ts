import { describe, it, expect, beforeAll, afterAll, jest } from '@jest/globals';
import request from 'supertest';
import { IdentityInvitations, StoreError } from '@tessera/identity';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import { CapturingLogger, captureProcessOutput, type ProcessOutputCapture } from '../../support/log-capture.js';
import {
  bootstrapBody,
  encodedForms,
  HostController,
  MARKER,
  SecretScan,
  storedDigests,
  textForms,
  unsafe,
} from './secret-scan.support.js';
import { identityKernelOf, type IdentityKernel } from '../../support/identity-kernel.js';

/**
 * Issue 3 acceptance: no response or log line contains a token, digest, secret or exception text.
 * A whole identity journey runs against the real database with every log sink captured (the Nest
 * logger, stdout/stderr, console); then every response (bodies, headers, Set-Cookie) and every log
 * line is scanned for each secret the suite created or the database stored, in every encoding a
 * leak would plausibly take.
 */

describe('no response or log line carries a token, digest, secret or exception text', () => {
  let output: ProcessOutputCapture;
  const logger = new CapturingLogger();
  let identity: IdentityTestApp;
  let kernel: IdentityKernel;
  const scan = new SecretScan(() => identity);
  const { seen, needles } = scan;
  const http = () => request(identity.app.getHttpServer());
  const call = scan.call.bind(scan);
  const grantedSession = scan.grantedSession.bind(scan);
  const seeded = scan.seeded.bind(scan);

  beforeAll(async () => {
    output = captureProcessOutput();
    identity = await bootIdentityHostApp({ controllers: [HostController], logger });
    kernel = identityKernelOf(identity.app);
    for (const secret of identity.secrets) needles.push({ label: 'configured secret', forms: textForms(secret) });
    needles.push({ label: 'bootstrap secret', forms: textForms(identity.bootstrapSecret) });
    needles.push({ label: 'exception text', forms: [MARKER] });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    output?.restore();
    await identity?.close();
  });

  let owner: { userId: string; organizationId: string };
  const invitationTokens: string[] = [];

  it('bootstraps with the secret and uses the restricted session (refused, then logged out)', async () => {
    expect((await call('client-config', http().get('/identity/v1/client-config'))).status).toBe(200);
    const echoed = await call(
      'bootstrap with unknown key',
      http()
        .post('/identity/v1/bootstrap')
        .send({ ...bootstrapBody(identity.bootstrapSecret), extra: identity.bootstrapSecret }),
    );
    expect(echoed.body.error.code).toBe('request_invalid');
    const wrong = await call(
      'bootstrap wrong secret',
      http()
        .post('/identity/v1/bootstrap')
        .send(bootstrapBody('w'.repeat(40))),
    );
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const boot = await call(
      'bootstrap',
      http().post('/identity/v1/bootstrap').send(bootstrapBody(identity.bootstrapSecret)),
    );
    expect(boot.status).toBe(201);
    owner = { userId: boot.body.userId, organizationId: boot.body.organization.id };
    const restricted = grantedSession(boot, 'bootstrap session');
    expect(boot.text).toContain(restricted.csrfToken);
    expect((await call('restricted me', http().get('/identity/v1/me').set('cookie', restricted.cookie))).status).toBe(
      401,
    );
    expect((await call('restricted host', http().get('/host/account').set('cookie', restricted.cookie))).status).toBe(
      401,
    );
    const logout = await call('restricted logout', unsafe(http().post('/identity/v1/logout'), restricted));
    expect(logout.body).toEqual({ ok: true });
    const after = await call('after logout', http().get('/identity/v1/sessions').set('cookie', restricted.cookie));
    expect(after.body.error.code).toBe('session_revoked');
  });

  it('enrolls through invitations: once, then reused, mismatched and malformed tokens fail', async () => {
    const invitations = identity.app.get(IdentityInvitations);
    for (const email of ['grace@example.com', 'alan@example.com', 'late@example.com']) {
      const { token } = await invitations.create({
        organizationId: owner.organizationId,
        email,
        role: 'publisher',
        invitedByUserId: owner.userId,
      });
      invitationTokens.push(token!);
      needles.push({ label: `invitation token ${email}`, forms: encodedForms(token!) });
    }
    const [grace] = invitationTokens;
    const enrolled = await call(
      'enroll',
      http().post('/identity/v1/invitations/enroll').send({ token: grace, displayName: 'Grace' }),
    );
    expect(enrolled.status).toBe(201);
    const session = grantedSession(enrolled, 'enrollment session');
    const reused = await call(
      'enroll reuse',
      http().post('/identity/v1/invitations/enroll').send({ token: grace, displayName: 'Again' }),
    );
    expect(reused.body.error.code).toBe('invalid_credentials');
    const flipped = `${grace!.slice(0, -2)}${grace!.endsWith('AA') ? 'AE' : 'AA'}`;
    const mismatch = await call(
      'enroll mismatch',
      http().post('/identity/v1/invitations/enroll').send({ token: flipped, displayName: 'X' }),
    );
    expect(mismatch.body.error.code).toBe('invalid_credentials');
    const malformed = await call(
      'enroll malformed',
      http()
        .post('/identity/v1/invitations/enroll')
        .send({ token: `${grace}!`, displayName: 'X' }),
    );
    expect(malformed.body.error.code).toBe('invalid_credentials');
    expect(
      (await call('enrolled sessions', http().get('/identity/v1/sessions').set('cookie', session.cookie))).status,
    ).toBe(401);
    expect((await call('enrolled logout', unsafe(http().post('/identity/v1/logout'), session))).status).toBe(200);
  });

  let p1: Awaited<ReturnType<typeof seeded>>;
  let p2: Awaited<ReturnType<typeof seeded>>;
  let p3: Awaited<ReturnType<typeof seeded>>;

  it('serves me, the session list and guarded host routes to passkey sessions', async () => {
    p1 = await seeded('passkey session 1', owner.userId);
    p2 = await seeded('passkey session 2', owner.userId);
    p3 = await seeded('passkey session 3', owner.userId);
    expect((await call('me', http().get('/identity/v1/me').set('cookie', p1.cookie))).status).toBe(200);
    identity.clock.advance({ minutes: 2 });
    const list = await call('sessions', http().get('/identity/v1/sessions').set('cookie', p1.cookie));
    // The owner's logged-out bootstrap session and the three seeded ones.
    expect(list.body).toHaveLength(4);
    expect((await call('host account', http().get('/host/account').set('cookie', p1.cookie))).status).toBe(200);
    expect((await call('host sensitive', http().get('/host/sensitive').set('cookie', p1.cookie))).status).toBe(200);
    identity.clock.advance({ minutes: 10 });
    expect((await call('host step-up', http().get('/host/sensitive').set('cookie', p1.cookie))).status).toBe(403);
  });

  it('refuses wrong tokens, bearer tokens and CSRF failures', async () => {
    const [selector, secret] = p1.cookie.split('.') as [string, string];
    const wrongSecret = `${selector}.${Buffer.from(secret, 'base64url').reverse().toString('base64url')}`;
    for (const [label, test] of [
      ['wrong cookie secret', http().get('/identity/v1/me').set('cookie', wrongSecret)],
      ['wrong cookie on host', http().get('/host/account').set('cookie', wrongSecret)],
      ['garbage cookie', http().get('/identity/v1/me').set('cookie', '__Host-tessera_session=garbage')],
      ['duplicate cookie', http().get('/identity/v1/me').set('cookie', `${p1.cookie}; ${p1.cookie}`)],
      ['bearer', http().get('/identity/v1/me').set('authorization', `Bearer ${secret}.${secret}`)],
      [
        'cookie and bearer',
        http().get('/identity/v1/me').set('cookie', p1.cookie).set('authorization', `Bearer ${secret}.x`),
      ],
      [
        'csrf of another session',
        unsafe(http().post('/identity/v1/logout'), { cookie: p1.cookie, csrfToken: p2.csrfToken }),
      ],
      ['csrf missing', http().post('/identity/v1/logout').set('cookie', p1.cookie).set('origin', TEST_ORIGIN)],
      ['csrf in query', unsafe(http().post(`/identity/v1/logout?csrf=${p1.csrfToken}`), p1)],
      ['csrf wrong origin', unsafe(http().post('/identity/v1/logout'), p1).set('origin', 'http://evil.example')],
    ] as const) {
      const res = await call(label, test);
      expect([401, 403]).toContain(res.status);
    }
    expect((await call('still valid', http().get('/identity/v1/me').set('cookie', p1.cookie))).status).toBe(200);
  });

  it('revokes one session, then answers session_revoked for it on identity and host routes', async () => {
    const revoked = await call('revoke one', unsafe(http().delete(`/identity/v1/sessions/${p2.sessionId}`), p1));
    expect(revoked.body).toEqual({ revokedSessionIds: [p2.sessionId], clearCurrentCookie: false });
    expect((await call('revoked me', http().get('/identity/v1/me').set('cookie', p2.cookie))).body.error.code).toBe(
      'session_revoked',
    );
    expect((await call('revoked host', http().get('/host/account').set('cookie', p2.cookie))).body.error.code).toBe(
      'session_revoked',
    );
  });

  const loggedRequestIds: string[] = [];

  it('keeps the text of store and limiter exceptions out of every response', async () => {
    const boom = () => new Error(`store exploded: ${MARKER}`);
    // [label, arrange, request, status, logged through the error mapper]
    const failures: [string, () => void, () => request.Test, number, boolean][] = [
      [
        'resolution throws',
        () => jest.spyOn(kernel.store, 'findSessionWithUser').mockRejectedValueOnce(boom()),
        () => http().get('/identity/v1/me').set('cookie', p1.cookie),
        503,
        false,
      ],
      [
        'resolution throws on host',
        () => jest.spyOn(kernel.store, 'findSessionWithUser').mockRejectedValueOnce(boom()),
        () => http().get('/host/account').set('cookie', p1.cookie),
        503,
        false,
      ],
      [
        'handler read throws',
        () => jest.spyOn(kernel.store, 'listSessionsForUser').mockRejectedValueOnce(boom()),
        () => http().get('/identity/v1/sessions').set('cookie', p1.cookie),
        500,
        true,
      ],
      [
        'handler read store error',
        () =>
          jest
            .spyOn(kernel.store, 'listSessionsForUser')
            .mockRejectedValueOnce(new StoreError('unavailable', { message: MARKER, cause: boom() })),
        () => http().get('/identity/v1/sessions').set('cookie', p1.cookie),
        503,
        true,
      ],
      [
        'command throws',
        () => jest.spyOn(kernel.store, 'revokeSession').mockRejectedValueOnce(boom()),
        () => unsafe(http().post('/identity/v1/logout'), p3),
        500,
        true,
      ],
      [
        'limiter throws',
        () => jest.spyOn(kernel.rateLimiter, 'consume').mockRejectedValueOnce(boom()),
        () => http().post('/identity/v1/invitations/enroll').send({ token: invitationTokens[1], displayName: 'Alan' }),
        503,
        true,
      ],
      [
        'enrollment command throws',
        () => jest.spyOn(kernel.store, 'enrollInvitation').mockRejectedValueOnce(boom()),
        () => http().post('/identity/v1/invitations/enroll').send({ token: invitationTokens[1], displayName: 'Alan' }),
        500,
        true,
      ],
    ];
    for (const [label, arrange, send, status, logged] of failures) {
      arrange();
      const res = await call(label, send());
      expect(res.status).toBe(status);
      if (logged) loggedRequestIds.push(res.body.error.requestId as string);
    }
    jest.restoreAllMocks();
    expect((await call('recovered', http().get('/identity/v1/sessions').set('cookie', p1.cookie))).status).toBe(200);
  });

  it('revokes the other sessions, then all, clearing the cookie', async () => {
    const p4 = await seeded('passkey session 4', owner.userId);
    const others = await call('revoke others', unsafe(http().post('/identity/v1/sessions/revoke-others'), p1));
    expect(others.status).toBe(200);
    expect(new Set(others.body.revokedSessionIds)).toEqual(new Set([p3.sessionId, p4.sessionId]));
    const all = await call('revoke all', unsafe(http().post('/identity/v1/sessions/revoke-all'), p1));
    expect(all.body).toEqual({ revokedSessionIds: [p1.sessionId], clearCurrentCookie: true });
    expect((await call('after revoke-all', http().get('/identity/v1/me').set('cookie', p1.cookie))).status).toBe(401);
  });

  it('answers expired sessions and expired invitations, and rate-limits bootstrap attempts', async () => {
    const expiring = await seeded('passkey session 5', owner.userId);
    identity.clock.advance({ days: 8 });
    expect(
      (await call('expired me', http().get('/identity/v1/me').set('cookie', expiring.cookie))).body.error.code,
    ).toBe('session_expired');
    expect(
      (await call('expired host', http().get('/host/account').set('cookie', expiring.cookie))).body.error.code,
    ).toBe('session_expired');
    const late = await call(
      'enroll expired invitation',
      http().post('/identity/v1/invitations/enroll').send({ token: invitationTokens[2], displayName: 'Late' }),
    );
    expect(late.body.error.code).toBe('invalid_credentials');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(
        'bootstrap again',
        http().post('/identity/v1/bootstrap').send(bootstrapBody(identity.bootstrapSecret)),
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([409, 409, 409, 409, 409, 429]);
  });

  it('finds none of them in any response or log line', async () => {
    // The digests the database holds: every *_digest* value column, pseudonyms and limiter keys.
    const { columnCount, digests } = await storedDigests(identity);
    expect(columnCount).toBeGreaterThan(15);
    for (const digest of digests) {
      expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
      needles.push({ label: 'stored digest', forms: encodedForms(digest) });
    }
    // 7 sessions × 2, 3 invitations, the bootstrap receipt, 2 limiter keys, the client pseudonym.
    expect(digests.length).toBeGreaterThanOrEqual(21);

    console.info('log-capture probe');
    const logs = [...logger.lines, ...output.lines];
    expect(output.lines.some((line) => line.includes('log-capture probe'))).toBe(true);
    // The failures above were logged, by request id and error class only.
    for (const requestId of loggedRequestIds) expect(logger.lines.some((line) => line.includes(requestId))).toBe(true);
    expect(logger.lines.some((line) => /internal_error \(Error\)/.test(line))).toBe(true);

    const violations = scan.violations(logs);
    expect(seen.length).toBeGreaterThan(50);
    expect(needles.length).toBeGreaterThan(40);
    expect([...new Set(violations)]).toEqual([]);
  });
});
