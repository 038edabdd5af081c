import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { IdentityInvitations } from '@tessera/identity';
import { CHANGE_LISTENER_APPLICATION_NAME } from '@tessera/identity-mikro-orm';
import { identityKernelOf } from '../../support/identity-kernel.js';
import { refusedWithin } from '../../support/session-polling.js';
import type { SessionValidationCache } from '../../../libs/identity/src/sessions/session-validation.cache.js';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, type TestSession } from '../../support/passkey-client.js';
import { bootInstancePair, me, ownerAcross, signInAcross, type InstancePair } from './two-instances.support.js';

const ENROLL = '/identity/v1/invitations/enroll';
const RECOVERY_USE = '/identity/v1/recovery/codes/use';

async function count(on: IdentityTestApp, sql: string, params: unknown[] = []): Promise<number> {
  const rows = await on.app.get(MikroORM).em.fork().getConnection().execute<{ n: number }[]>(sql, params);
  return Number(rows[0]!.n);
}

const ON_SERVER = Boolean(process.env.DATABASE_URL);

function sql(on: IdentityTestApp, text: string, params: unknown[] = []): Promise<unknown> {
  return on.app.get(MikroORM).em.fork().getConnection().execute(text, params);
}

/** The instance's session cache. */
function cacheOf(on: IdentityTestApp): SessionValidationCache {
  return identityKernelOf(on.app).sessionCache;
}

async function listeners(on: IdentityTestApp): Promise<number> {
  return count(
    on,
    `select count(*)::int n from pg_stat_activity where application_name = ? and datname = current_database()`,
    [CHANGE_LISTENER_APPLICATION_NAME],
  );
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function revoke(on: IdentityTestApp, session: TestSession, sessionId: string) {
  return request(on.app.getHttpServer())
    .delete(`/identity/v1/sessions/${sessionId}`)
    .set('origin', 'http://localhost:3000')
    .set('cookie', session.cookie)
    .set('x-csrf-token', session.csrfToken);
}

describe('two app instances on one database (default configuration)', () => {
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

  it('sees a revocation made on one instance on the other', async () => {
    const first = await signInAcross(pair.a, pair.a, owner.authenticator);
    const second = await signInAcross(pair.b, pair.b, owner.authenticator);
    expect((await me(pair.b, second)).status).toBe(200);
    expect((await revoke(pair.a, first, second.sessionId)).status).toBe(200);
    const revoked = (await refusedWithin(() => me(pair.b, second), 2000)).last;
    expect([revoked.status, revoked.body.error?.code]).toEqual([401, 'session_revoked']);
    expect((await me(pair.a, first)).status).toBe(200);
    expect((await post(pair.b, '/identity/v1/logout', first).send({})).status).toBe(200);
    const loggedOut = (await refusedWithin(() => me(pair.a, first), 2000)).last;
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

describe(`the session cache across instances (${ON_SERVER ? 'PostgreSQL: LISTEN/NOTIFY' : 'PGlite: one process'})`, () => {
  let pair: InstancePair;
  let owner: Awaited<ReturnType<typeof ownerAcross>>;

  beforeAll(async () => {
    pair = await bootInstancePair();
    owner = await ownerAcross(pair);
  });
  afterAll(async () => pair?.close());

  it('is on by default, and a revocation on one instance is refused on the other within 100 ms', async () => {
    expect([cacheOf(pair.a).live, cacheOf(pair.b).live]).toEqual([true, true]);
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const keeper = await signInAcross(pair.a, pair.a, owner.authenticator);
      const cached = await signInAcross(pair.b, pair.b, owner.authenticator);
      // B holds the session's read in its cache.
      for (let i = 0; i < 3; i++) expect((await me(pair.b, cached)).status).toBe(200);
      expect((await revoke(pair.a, keeper, cached.sessionId)).status).toBe(200);
      const { latency, last } = await refusedWithin(() => me(pair.b, cached), 2000);
      expect([last.status, last.body.error?.code]).toEqual([401, 'session_revoked']);
      latencies.push(latency);
    }
    // Measured: the notice reaches B in a few milliseconds; the bound is generous for a loaded machine.
    expect(Math.max(...latencies)).toBeLessThan(ON_SERVER ? 1000 : 100);
  });

  it('sees a write made around Tessera (SQL: a revocation, an idle expiry moved earlier) on every instance', async () => {
    const revoked = await signInAcross(pair.a, pair.b, owner.authenticator);
    const expired = await signInAcross(pair.b, pair.a, owner.authenticator);
    for (const on of [pair.a, pair.b])
      for (const session of [revoked, expired]) expect((await me(on, session)).status).toBe(200);
    await sql(
      pair.a,
      `update tessera_identity.sessions set state = 'revoked', revoked_at = now(), revoked_reason = 'logout', version = version + 1 where id = ?`,
      [revoked.sessionId],
    );
    // An operator ending a session by its idle expiry (the apps' clock is frozen at the sign-in time).
    await sql(pair.a, `update tessera_identity.sessions set idle_expires_at = authenticated_at where id = ?`, [
      expired.sessionId,
    ]);
    // On a server every instance is notified; on PGlite (one process) the write is seen once the entry ages out.
    const bound = ON_SERVER ? 2000 : 6000;
    const answers = await Promise.all(
      [pair.a, pair.b].flatMap((on) => [
        refusedWithin(() => me(on, revoked), bound),
        refusedWithin(() => me(on, expired), bound),
      ]),
    );
    expect(answers.map(({ last }) => [last.status, last.body.error?.code])).toEqual([
      [401, 'session_revoked'],
      [401, 'session_expired'],
      [401, 'session_revoked'],
      [401, 'session_expired'],
    ]);
  });

  it('falls back to store reads while the listener connection is lost, with no stale answer, and resumes once it is back', async () => {
    const session = await signInAcross(pair.b, pair.b, owner.authenticator);
    expect((await me(pair.b, session)).status).toBe(200);
    if (!ON_SERVER) {
      // Embedded PGlite has no listener connection: its single process invalidates its own caches.
      expect(await listeners(pair.a)).toBe(0);
      return;
    }
    expect(await listeners(pair.a)).toBeGreaterThanOrEqual(2);
    // The listeners read as such in pg_stat_activity (their heartbeat repeats the LISTEN).
    expect(
      await count(
        pair.a,
        `select count(*)::int n from pg_stat_activity where application_name = ? and query ilike 'listen %' and datname = current_database()`,
        [CHANGE_LISTENER_APPLICATION_NAME],
      ),
    ).toBeGreaterThanOrEqual(2);
    await sql(
      pair.a,
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = ? and datname = current_database()`,
      [CHANGE_LISTENER_APPLICATION_NAME],
    );
    await until(() => !cacheOf(pair.b).live, 2000);
    // The notice of this write reaches nobody; B must read the store.
    await sql(
      pair.a,
      `update tessera_identity.users set session_epoch = session_epoch + 1, version = version + 1 where id = ?`,
      [owner.userId],
    );
    const stale = await me(pair.b, session);
    expect([stale.status, stale.body.error?.code]).toEqual([401, 'session_revoked']);
    await until(() => cacheOf(pair.b).live, 10_000);
    // Back: a new session is cached again and a revocation is still seen at once.
    const next = await signInAcross(pair.a, pair.b, owner.authenticator);
    const keeper = await signInAcross(pair.a, pair.a, owner.authenticator);
    for (let i = 0; i < 3; i++) expect((await me(pair.b, next)).status).toBe(200);
    expect((await revoke(pair.a, keeper, next.sessionId)).status).toBe(200);
    const { last } = await refusedWithin(() => me(pair.b, next), 2000);
    expect(last.status).toBe(401);
  });

  it('turns off with lifetimes.sessionCacheSeconds 0: a write around Tessera is refused by the very next request', async () => {
    const off = await bootInstancePair({ lifetimes: { sessionCacheSeconds: 0 } });
    try {
      const offOwner = await ownerAcross(off);
      const session = await signInAcross(off.a, off.b, offOwner.authenticator);
      expect([cacheOf(off.b).enabled, (await me(off.b, session)).status]).toEqual([false, 200]);
      await sql(
        off.a,
        `update tessera_identity.sessions set state = 'revoked', revoked_at = now(), revoked_reason = 'logout', version = version + 1 where id = ?`,
        [session.sessionId],
      );
      expect((await me(off.b, session)).status).toBe(401);
    } finally {
      await off.close();
    }
  });
});
