import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { IdentityInvitations } from '@tessera/identity';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, type TestSession } from '../../support/passkey-client.js';
import { bootInstancePair, me, ownerAcross, signInAcross, type InstancePair } from './two-instances.support.js';

const ENROLL = '/identity/v1/invitations/enroll';
const RECOVERY_USE = '/identity/v1/recovery/codes/use';

async function count(on: IdentityTestApp, sql: string, params: unknown[] = []): Promise<number> {
  const rows = await on.app.get(MikroORM).em.fork().getConnection().execute<{ n: number }[]>(sql, params);
  return Number(rows[0]!.n);
}

function revoke(on: IdentityTestApp, session: TestSession, sessionId: string) {
  return request(on.app.getHttpServer())
    .delete(`/identity/v1/sessions/${sessionId}`)
    .set('origin', 'http://localhost:3000')
    .set('cookie', session.cookie)
    .set('x-csrf-token', session.csrfToken);
}

describe('two app instances on one database (default configuration: no session cache)', () => {
  let pair: InstancePair;
  let owner: Awaited<ReturnType<typeof ownerAcross>>;

  beforeAll(async () => {
    // The enrollment race below needs 50 enrollments from one peer inside the (shared) window.
    pair = await bootInstancePair({ rateLimits: { invitation_enroll: { limit: 100, windowSeconds: 900 } } });
    owner = await ownerAcross(pair);
  });
  afterAll(async () => pair?.close());

  it('accepts a session made on one instance on the other, with ceremonies started on one and finished on the other', async () => {
    const fromB = await signInAcross(pair.a, pair.b, owner.authenticator);
    const fromA = await signInAcross(pair.b, pair.a, owner.authenticator);
    for (const session of [fromA, fromB]) {
      for (const on of [pair.a, pair.b]) {
        const res = await me(on, session);
        expect([res.status, res.body.userId, res.body.assuranceLevel]).toEqual([200, owner.userId, 'passkey']);
      }
    }
  });

  it('sees a revocation made on one instance at once on the other', async () => {
    const first = await signInAcross(pair.a, pair.a, owner.authenticator);
    const second = await signInAcross(pair.b, pair.b, owner.authenticator);
    expect((await me(pair.b, second)).status).toBe(200);
    expect((await revoke(pair.a, first, second.sessionId)).status).toBe(200);
    const revoked = await me(pair.b, second);
    expect([revoked.status, revoked.body.error?.code]).toEqual([401, 'session_revoked']);
    expect((await me(pair.a, first)).status).toBe(200);
    expect((await post(pair.b, '/identity/v1/logout', first).send({})).status).toBe(200);
    const loggedOut = await me(pair.a, first);
    expect([loggedOut.status, loggedOut.body.error?.code]).toEqual([401, 'session_revoked']);
  });

  it('shares one rate-limit bucket between the instances (recovery_code: 5 per minute per peer)', async () => {
    const attempt = (on: IdentityTestApp) => post(on, RECOVERY_USE).send({ code: 'not-a-recovery-code-at-all' });
    const statuses = [];
    for (const on of [pair.a, pair.b, pair.a, pair.b, pair.a]) statuses.push((await attempt(on)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    for (const on of [pair.b, pair.a]) {
      const denied = await attempt(on);
      expect([denied.status, denied.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('mints exactly one account under 50 concurrent enrollments of one invitation token split over both instances', async () => {
    const { token, invitation } = await pair.a.app.get(IdentityInvitations).create({
      organizationId: owner.organizationId,
      email: 'grace@example.com',
      role: 'publisher',
      invitedByUserId: owner.userId,
    });
    const users = await count(pair.a, 'select count(*)::int n from tessera_identity.users');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request((i % 2 === 0 ? pair.a : pair.b).app.getHttpServer())
          .post(ENROLL)
          .send({ token, displayName: `Grace ${i}` }),
      ),
    );
    const winners = results.filter((res) => res.status === 201);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((res) => res.status !== 201))
      expect([loser.status, loser.body.error.code]).toEqual([401, 'invalid_credentials']);
    const userId = winners[0]!.body.userId as string;
    expect(await count(pair.b, 'select count(*)::int n from tessera_identity.users')).toBe(users + 1);
    expect(
      await count(pair.b, 'select count(*)::int n from tessera_identity.sessions where user_id = ?', [userId]),
    ).toBe(1);
    expect(
      await count(pair.b, 'select count(*)::int n from tessera_identity.memberships where user_id = ?', [userId]),
    ).toBe(1);
    expect(
      await count(
        pair.a,
        `select count(*)::int n from tessera_identity.invitations where id = ? and state = 'accepted'`,
        [invitation.id],
      ),
    ).toBe(1);
  });
});

describe('two app instances with the opt-in session cache (lifetimes.sessionCacheSeconds)', () => {
  const CACHE_SECONDS = 2;
  let pair: InstancePair;

  beforeAll(async () => {
    pair = await bootInstancePair({ lifetimes: { sessionCacheSeconds: CACHE_SECONDS } });
  });
  afterAll(async () => pair?.close());

  it(`sees a revocation at once on the revoking instance, and on the other once its ${CACHE_SECONDS} s cache entry ages out`, async () => {
    const owner = await ownerAcross(pair);
    const keeper = await signInAcross(pair.a, pair.a, owner.authenticator);
    const cached = await signInAcross(pair.b, pair.b, owner.authenticator);
    // Both instances now hold the session's read in their caches.
    for (const on of [pair.a, pair.b]) expect((await me(on, cached)).status).toBe(200);
    expect((await revoke(pair.a, keeper, cached.sessionId)).status).toBe(200);
    const revokedAt = performance.now();
    expect((await me(pair.a, cached)).status).toBe(401);
    // B may answer from its cache until the entry it stored before the revocation ages out.
    const deadline = revokedAt + CACHE_SECONDS * 1000 + 1500;
    let status = (await me(pair.b, cached)).status;
    while (status === 200 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await me(pair.b, cached)).status;
    }
    expect(status).toBe(401);
  });
});
