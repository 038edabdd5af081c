import { describe, it, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { FrozenClock } from '../runtime/frozen.clock.js';
import type { FederatedSessionStanding } from '../store/identity-federation.port.js';
import type { SessionRecord, UserRecord } from '../store/identity-records.js';
import type { IdentityStore, StoreResult } from '../store/identity-store.port.js';
import { issueSession } from './session-issuer.js';
import type { SessionPepperRing } from './session-keys.js';
import { SessionResolver } from './session-resolver.js';
import { attachedCache } from './change-feed.fixture.js';
import { SessionValidationCache } from './session-validation.cache.js';

const random = { bytes: (n: number) => new Uint8Array(randomBytes(n)) };
const pepper = { version: 'v1', key: randomBytes(32) };
const ring: SessionPepperRing = { current: pepper, byVersion: (v) => (v === 'v1' ? pepper : undefined) };
const clock = new FrozenClock('2026-07-14T08:15:30Z');
const FEDERATION = {
  organizationId: '0190f0e0-0000-7000-8000-000000000001',
  providerKey: `oidc.${'a'.repeat(43)}`,
  providerSessionEpoch: 2,
  externalIdentityId: '0190f0e0-0000-7000-8000-000000000002',
};
const STANDING: FederatedSessionStanding = {
  provider: { state: 'enabled', sessionEpoch: 2 },
  organizationState: 'active',
  membershipState: 'active',
};

function stored(federated = false): { cookie: string; session: SessionRecord; user: UserRecord } {
  const at = clock.now();
  const issued = issueSession({ clock, random }, ring, {
    userId: '0190f0e0-0000-7000-8000-0000000000aa',
    assurance: federated ? 'session' : 'passkey',
    authenticationMethod: federated ? 'oidc' : 'passkey',
    authenticatedAt: at,
    lifetimes: { idleSeconds: 3600, absoluteSeconds: 86_400 },
    ...(federated ? { federation: FEDERATION } : {}),
  });
  const session: SessionRecord = {
    ...issued.session,
    state: 'active',
    userSessionEpoch: 0,
    rotatedToId: null,
    lastUsedAt: at,
    revokedAt: null,
    revokedReason: null,
    version: 0,
    createdAt: at,
  };
  const user: UserRecord = {
    id: session.userId,
    primaryEmail: null,
    displayName: 'U',
    state: 'active',
    sessionEpoch: 0,
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
  return { cookie: issued.cookieToken, session, user };
}

/** A store double: `reads` answers the session reads in turn, `touch` the touch CAS. */
function storeOf(over: {
  reads: (() => Promise<{ session: SessionRecord; user: UserRecord } | null>)[];
  touch?: (version: number) => StoreResult<SessionRecord>;
  standing?: FederatedSessionStanding;
}) {
  const calls = { reads: 0, standings: 0, commands: 0 };
  const store = {
    findSessionWithUser: () => over.reads[Math.min(calls.reads++, over.reads.length - 1)]!(),
    touchIdentitySession: async (input: { expectedVersion: number }) =>
      over.touch?.(input.expectedVersion) ?? ({ ok: false, code: 'version_conflict' } as const),
    findFederatedSessionStanding: async () => {
      calls.standings++;
      return over.standing ?? STANDING;
    },
    revokeUserSessions: async () => {
      calls.commands++;
      return { ok: true, value: { revokedSessionIds: [], sessionEpoch: 1 } } as const;
    },
  };
  return { store: store as unknown as IdentityStore, calls };
}

describe('SessionResolver', () => {
  it('does not cache a read that a command of this process overlapped (the generation is taken before the read)', async () => {
    const { cookie, session, user } = stored();
    const suspended = { ...user, state: 'suspended' as const, sessionEpoch: 1 };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { store, calls } = storeOf({
      reads: [
        async () => {
          await gate;
          return { session, user };
        },
        async () => ({ session, user: suspended }),
      ],
      touch: (version) => ({ ok: true, value: { ...session, lastUsedAt: clock.now(), version: version + 1 } }),
    });
    const { cache } = await attachedCache(new SessionValidationCache(60_000));
    const cached = cache.invalidating(store);
    const resolver = new SessionResolver(cached, ring, { idleSeconds: 3600, touchIntervalSeconds: 0 }, cache);
    clock.advance({ seconds: 1 });
    const first = resolver.resolve(cookie, clock.now());
    // The user is suspended by this process while the read is in flight; the read then returns the old row.
    await cached.revokeUserSessions({} as never);
    release();
    expect((await first).ok).toBe(true);
    const second = await resolver.resolve(cookie, clock.now());
    expect(second).toEqual({ ok: false, code: 'session_revoked' });
    expect(calls.reads).toBe(2);
  });

  it("decides a cached refusal again on a fresh read: another instance's touch slid the idle expiry", async () => {
    const { cookie, session, user } = stored();
    // The store holds the session as slid by another instance; this instance's cache has the old expiry.
    const slid = {
      ...session,
      lastUsedAt: new Date(clock.now().getTime() + 3_000_000),
      idleExpiresAt: new Date(clock.now().getTime() + 6_600_000),
      version: 7,
    };
    const { store, calls } = storeOf({
      reads: [async () => ({ session, user }), async () => ({ session: slid, user })],
    });
    const { cache } = await attachedCache(new SessionValidationCache(60_000_000));
    const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 86_400 }, cache);
    expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
    const later = new Date(clock.now().getTime() + 3_700_000);
    expect(await resolver.resolve(cookie, later)).toEqual({ ok: true, session: slid, user });
    expect(calls.reads).toBe(2);
    // The fresh read is what the cache serves next.
    expect(await resolver.resolve(cookie, later)).toEqual({ ok: true, session: slid, user });
    expect(calls.reads).toBe(2);
  });

  it('serves nothing from the cache while its feed is not live', async () => {
    const { cookie, session, user } = stored();
    const { store, calls } = storeOf({ reads: [async () => ({ session, user })] });
    const { cache, feed } = await attachedCache(new SessionValidationCache(60_000));
    const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 60 }, cache);
    expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
    expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
    expect(calls.reads).toBe(1);
    feed.lose();
    expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
    expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
    expect(calls.reads).toBe(3);
  });

  it('serves a session another request touched first when its own touch CAS loses (touchIntervalSeconds: 0)', async () => {
    const { cookie, session, user } = stored();
    const touched = { ...session, lastUsedAt: clock.now(), version: 1 };
    const { store } = storeOf({
      reads: [async () => ({ session, user }), async () => ({ session: touched, user })],
    });
    const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 0 });
    expect(await resolver.resolve(cookie, clock.now())).toEqual({ ok: true, session: touched, user });
  });

  it('fails closed when the touch CAS loses and the re-read shows no newer version', async () => {
    const { cookie, session, user } = stored();
    const { store } = storeOf({ reads: [async () => ({ session, user })] });
    const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 0 });
    expect(await resolver.resolve(cookie, clock.now())).toEqual({ ok: false, code: 'service_unavailable' });
  });

  describe('federated sessions (identity-http §2.1)', () => {
    const cases: [string, FederatedSessionStanding][] = [
      ['the provider is disabled', { ...STANDING, provider: { state: 'disabled', sessionEpoch: 2 } }],
      ['the provider epoch changed', { ...STANDING, provider: { state: 'enabled', sessionEpoch: 3 } }],
      ['the provider control is gone', { ...STANDING, provider: null }],
      ['the tenant organization is suspended', { ...STANDING, organizationState: 'suspended' }],
      ['the tenant organization is deleted', { ...STANDING, organizationState: 'deleted' }],
      ['the membership is suspended', { ...STANDING, membershipState: 'suspended' }],
      ['the membership is removed', { ...STANDING, membershipState: 'removed' }],
      ['the membership is missing', { ...STANDING, membershipState: null }],
    ];
    it.each(cases)('revokes a federated session when %s', async (_name, standing) => {
      const { cookie, session, user } = stored(true);
      const { store } = storeOf({ reads: [async () => ({ session, user })], standing });
      const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 60 });
      expect(await resolver.resolve(cookie, clock.now())).toEqual({ ok: false, code: 'session_revoked' });
    });

    it('accepts a federated session whose provider, tenant and membership hold, checking them on every request', async () => {
      const { cookie, session, user } = stored(true);
      const { cache } = await attachedCache(new SessionValidationCache(60_000));
      const { store, calls } = storeOf({ reads: [async () => ({ session, user })] });
      const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 60 }, cache);
      expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
      expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
      expect(calls).toMatchObject({ reads: 1, standings: 2 });
    });

    it('never reads a federation standing for a non-federated session', async () => {
      const { cookie, session, user } = stored();
      const { store, calls } = storeOf({ reads: [async () => ({ session, user })] });
      const resolver = new SessionResolver(store, ring, { idleSeconds: 3600, touchIntervalSeconds: 60 });
      expect((await resolver.resolve(cookie, clock.now())).ok).toBe(true);
      expect(calls.standings).toBe(0);
    });
  });
});
