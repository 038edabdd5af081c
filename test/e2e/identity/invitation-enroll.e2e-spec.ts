import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { IdentityInvitations } from '@tessera/identity';
import { bootIdentityApp, sessionCookieOf, type IdentityTestApp } from '../../support/identity-app.js';

const ENROLL = '/identity/v1/invitations/enroll';

async function rows(app: IdentityTestApp, sql: string): Promise<number> {
  const result = await app.app.get(MikroORM).em.fork().getConnection().execute<{ n: number }[]>(sql);
  return Number(result[0]!.n);
}

/** Bootstraps an owner + organization and returns a way to mint invitations for it. */
async function withOrganization(app: IdentityTestApp) {
  const http = request(app.app.getHttpServer());
  const boot = await http.post('/identity/v1/bootstrap').send({
    secret: app.bootstrapSecret,
    displayName: 'Owner',
    primaryEmail: 'owner@example.com',
    organizationName: 'Acme',
    organizationSlug: 'acme',
  });
  expect(boot.status).toBe(201);
  const invitations = app.app.get(IdentityInvitations);
  return {
    organizationId: boot.body.organization.id as string,
    invite: (email: string, invitedBy: string | null = boot.body.userId) =>
      invitations.create({
        organizationId: boot.body.organization.id,
        email,
        role: 'publisher',
        invitedByUserId: invitedBy,
      }),
  };
}

function stripRequestId(body: { error: Record<string, unknown> }) {
  const { requestId: _ignored, ...rest } = body.error;
  return rest;
}

describe('POST /identity/v1/invitations/enroll (route 34)', () => {
  let identity: IdentityTestApp;
  let org: Awaited<ReturnType<typeof withOrganization>>;
  beforeAll(async () => {
    // Rate limits are exercised elsewhere; 100 concurrent enrolments must reach the store here.
    identity = await bootIdentityApp({ rateLimits: { invitation_enroll: false } });
    org = await withOrganization(identity);
  });
  afterAll(async () => identity?.close());

  it('mints exactly one account under 100 concurrent enrolments of one token', async () => {
    const { token, invitation } = await org.invite('grace@example.com');
    const http = request(identity.app.getHttpServer());
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => http.post(ENROLL).send({ token, displayName: `Grace ${i}` })),
    );
    const winners = results.filter((res) => res.status === 201);
    expect(winners).toHaveLength(1);
    const losers = results.filter((res) => res.status !== 201);
    expect(new Set(losers.map((res) => JSON.stringify([res.status, stripRequestId(res.body)])))).toEqual(
      new Set([
        JSON.stringify([401, { code: 'invalid_credentials', message: 'Authentication failed', retryable: false }]),
      ]),
    );
    const won = winners[0]!;
    expect(won.body).toEqual({
      userId: expect.any(String),
      organizationId: org.organizationId,
      membership: expect.objectContaining({ role: 'publisher', state: 'active', organizationId: org.organizationId }),
      sessionId: expect.any(String),
      assurance: 'recovery',
      authenticatedAt: '2026-07-14T08:15:30Z',
      idleExpiresAt: '2026-07-14T08:30:30Z',
      absoluteExpiresAt: '2026-07-14T08:30:30Z',
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(sessionCookieOf(won.headers)).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect(won.text).not.toContain(token);
    expect(
      await rows(
        identity,
        `select count(*)::int n from tessera_identity.users where lower(primary_email) = 'grace@example.com'`,
      ),
    ).toBe(1);
    expect(
      await rows(
        identity,
        `select count(*)::int n from tessera_identity.memberships where user_id = '${won.body.userId}'`,
      ),
    ).toBe(1);
    expect(
      await rows(
        identity,
        `select count(*)::int n from tessera_identity.sessions where user_id = '${won.body.userId}'`,
      ),
    ).toBe(1);
    expect(
      await rows(
        identity,
        `select count(*)::int n from tessera_identity.invitations where id = '${invitation.id}' and state = 'accepted'`,
      ),
    ).toBe(1);
  });

  async function expectGenericFailure(send: () => Promise<request.Response>) {
    const users = await rows(identity, 'select count(*)::int n from tessera_identity.users');
    const sessions = await rows(identity, 'select count(*)::int n from tessera_identity.sessions');
    const res = await send();
    expect(res.status).toBe(401);
    expect(stripRequestId(res.body)).toEqual({
      code: 'invalid_credentials',
      message: 'Authentication failed',
      retryable: false,
    });
    expect(await rows(identity, 'select count(*)::int n from tessera_identity.users')).toBe(users);
    expect(await rows(identity, 'select count(*)::int n from tessera_identity.sessions')).toBe(sessions);
  }

  it('answers the same generic error and writes nothing for a reused token', async () => {
    const { token } = await org.invite('reuse@example.com');
    const http = request(identity.app.getHttpServer());
    expect((await http.post(ENROLL).send({ token, displayName: 'First' })).status).toBe(201);
    await expectGenericFailure(() => http.post(ENROLL).send({ token, displayName: 'Second' }));
  });

  it('answers the same generic error for a token that matches no invitation', async () => {
    await org.invite('mismatch@example.com');
    await expectGenericFailure(() =>
      request(identity.app.getHttpServer())
        .post(ENROLL)
        .send({ token: Buffer.alloc(32, 7).toString('base64url'), displayName: 'X' }),
    );
    await expectGenericFailure(() =>
      request(identity.app.getHttpServer())
        .post(ENROLL)
        .send({ token: 'not-a-token-but-long-enough', displayName: 'X' }),
    );
  });

  it('answers the same generic error when the email already belongs to an account', async () => {
    const { token } = await org.invite('OWNER@example.com');
    await expectGenericFailure(() =>
      request(identity.app.getHttpServer()).post(ENROLL).send({ token, displayName: 'Dup' }),
    );
  });

  it('answers the same generic error after the invitation expired (frozen clock)', async () => {
    const { token } = await org.invite('late@example.com');
    identity.clock.advance({ days: 7, seconds: 1 });
    try {
      await expectGenericFailure(() =>
        request(identity.app.getHttpServer()).post(ENROLL).send({ token, displayName: 'Late' }),
      );
    } finally {
      identity.clock.set('2026-07-14T08:15:30Z');
    }
  });
});

describe('enrollment rate limit (invitation_enroll: 10 per 15 min per peer)', () => {
  it('denies the 11th request with 429 rate_limited and Retry-After, before the token is checked', async () => {
    const identity = await bootIdentityApp();
    try {
      const http = request(identity.app.getHttpServer());
      for (let i = 0; i < 10; i++)
        expect((await http.post(ENROLL).send({ token: 'x'.repeat(43), displayName: 'X' })).status).toBe(401);
      const denied = await http.post(ENROLL).send({ token: 'x'.repeat(43), displayName: 'X' });
      expect(denied.status).toBe(429);
      expect(denied.body.error).toEqual({
        code: 'rate_limited',
        message: 'Too many attempts; retry later',
        requestId: expect.any(String),
        retryable: true,
      });
      expect(denied.headers['retry-after']).toBe('900');
    } finally {
      await identity.close();
    }
  });
});
