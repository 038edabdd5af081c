import { describe, expect, it } from '@jest/globals';
import type { FederatedSignInMode, FederationProviderLease } from '@tessera/identity';
import { newTestSession } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { FederationFixtures } from './federation.fixtures.js';

/**
 * FEDERATION_LINK_CONFLICTS_AND_REPLAY_RECEIPTS and FEDERATION_JIT_ATOMICITY (identity-model §11.1,
 * identity-http §6): `linkExternalIdentity` as the callback's one transaction.
 */
export function federationLinkCases(world: ConformanceWorld): void {
  const fixtures = new FederationFixtures(world);

  const receipts = (lease: FederationProviderLease, digest: string) =>
    world.rows.count('external_replay_receipts', 'provider = ? and assertion_digest = ?', [lease.storageKey, digest]);

  /** Rows a refused JIT sign-in must not leave: its user, membership, link, receipt and session. */
  async function leftovers(input: ReturnType<FederationFixtures['signIn']>): Promise<number[]> {
    const jit = input.mode.kind === 'sign_in' ? input.mode.jit : null;
    return [
      jit === null ? 0 : await world.rows.count('users', 'id = ?', [jit.user.id]),
      jit === null ? 0 : await world.rows.count('memberships', 'id = ?', [jit.membershipId]),
      await world.rows.count('external_identities', 'id = ?', [input.externalIdentityId]),
      await receipts(input.lease, input.assertion.replayDigest),
      await world.rows.count('sessions', 'federation_provider_key = ? and user_id = ?', [
        input.lease.storageKey,
        jit?.user.id ?? input.externalIdentityId,
      ]),
      await world.storedAudits(input.audited),
    ];
  }

  /** A signed-in member of the lease's tenant with one active session. */
  async function signedInMember(lease: FederationProviderLease) {
    const userId = await fixtures.member(lease.organizationId);
    const session = newTestSession({ userId, at: world.clock.now() });
    await world.rows.session(session);
    return { userId, session: (await world.store.findSession(session.id))! };
  }

  describe('FEDERATION_LINK_CONFLICTS_AND_REPLAY_RECEIPTS', () => {
    it('signs in through an existing link with a new session, receipt and audit, linking nothing new', async () => {
      const lease = await fixtures.provider();
      const first = unwrap(await world.store.linkExternalIdentity(fixtures.signIn(lease, fixtures.jit())));
      world.tick();
      const input = fixtures.signIn(
        lease,
        { kind: 'sign_in', jit: null },
        {
          assertion: fixtures.assertion(first.link.subject),
        },
      );
      const again = unwrap(await world.store.linkExternalIdentity(input));
      expect(again).toMatchObject({ linked: false, provisioned: false, previous: null });
      expect(again.link).toEqual(first.link);
      expect(again.user.id).toBe(first.user.id);
      expect(again.session).toMatchObject({
        userId: first.user.id,
        state: 'active',
        assurance: 'session',
        authenticationMethod: 'oidc',
        federation: {
          organizationId: lease.organizationId,
          providerKey: lease.storageKey,
          providerSessionEpoch: 0,
          externalIdentityId: first.link.id,
        },
      });
      expect(await world.store.findSession(again.session.id)).toEqual(again.session);
      expect(await receipts(lease, input.assertion.replayDigest)).toBe(1);
      expect(await world.storedAudits(input.audited)).toBe(1);
    });

    it('refuses a replayed assertion with replay_detected and writes nothing for it', async () => {
      const lease = await fixtures.provider();
      const first = fixtures.signIn(lease, fixtures.jit());
      const signed = unwrap(await world.store.linkExternalIdentity(first));
      const replay = fixtures.signIn(lease, { kind: 'sign_in', jit: null }, { assertion: first.assertion });
      expect(await world.store.linkExternalIdentity(replay)).toEqual({ ok: false, code: 'replay_detected' });
      expect(await world.rows.count('sessions', 'user_id = ?', [signed.user.id])).toBe(1);
      expect(await world.storedAudits(replay.audited)).toBe(0);
      const receipt = { lease, assertion: first.assertion, at: world.clock.now() };
      expect(await world.store.recordExternalIdentityReplay(receipt)).toEqual({ ok: false, code: 'replay_detected' });
      const fresh = { ...receipt, assertion: fixtures.assertion() };
      expect(await world.store.recordExternalIdentityReplay(fresh)).toEqual({ ok: true, value: undefined });
      expect(await receipts(lease, fresh.assertion.replayDigest)).toBe(1);
    });

    it('keeps (provider, subject) linked to one user: linking it to another is already_exists and rolls back', async () => {
      const lease = await fixtures.provider();
      const owner = unwrap(await world.store.linkExternalIdentity(fixtures.signIn(lease, fixtures.jit())));
      const other = await signedInMember(lease);
      const mode: FederatedSignInMode = { kind: 'link', sessionId: other.session.id, expectedUserId: other.userId };
      const input = fixtures.signIn(lease, mode, { assertion: fixtures.assertion(owner.link.subject) });
      expect(await world.store.linkExternalIdentity(input)).toEqual({ ok: false, code: 'already_exists' });
      expect(await world.store.findSession(other.session.id)).toEqual(other.session);
      expect(await receipts(lease, input.assertion.replayDigest)).toBe(0);
      expect(await world.storedAudits(input.audited)).toBe(0);
      expect(await world.store.findExternalIdentity(lease.storageKey, owner.link.subject)).toEqual(owner.link);
    });

    it('links the identity to a signed-in user by rotating their session into the federated one', async () => {
      const lease = await fixtures.provider();
      const { userId, session } = await signedInMember(lease);
      world.tick();
      const input = fixtures.signIn(lease, { kind: 'link', sessionId: session.id, expectedUserId: userId });
      const linked = unwrap(await world.store.linkExternalIdentity(input));
      expect(linked).toMatchObject({ linked: true, provisioned: false });
      expect(linked.link).toMatchObject({ id: input.externalIdentityId, userId, state: 'active', version: 0 });
      expect(linked.previous).toMatchObject({ id: session.id, state: 'rotated', rotatedToId: linked.session.id });
      expect(linked.session).toMatchObject({
        familyId: session.familyId,
        rotationCounter: session.rotationCounter + 1,
        authenticationMethod: 'oidc',
        federation: { externalIdentityId: linked.link.id, providerSessionEpoch: 0 },
      });
      expect(await world.store.findExternalIdentity(lease.storageKey, input.assertion.subject)).toEqual(linked.link);
      expect(await world.storedAudits(input.audited)).toBe(1);

      const stranger = await signedInMember(lease);
      const foreign = fixtures.signIn(lease, { kind: 'link', sessionId: session.id, expectedUserId: stranger.userId });
      // The initiating session is no longer active (rotated above), and not the stranger's.
      expect(await world.store.linkExternalIdentity(foreign)).toEqual({ ok: false, code: 'session_not_active' });
      expect(await world.rows.count('external_identities', 'id = ?', [foreign.externalIdentityId])).toBe(0);
    });

    it('keeps links and receipts across a disable, and refuses every sign-in under the old lease', async () => {
      const lease = await fixtures.provider();
      const signed = unwrap(await world.store.linkExternalIdentity(fixtures.signIn(lease, fixtures.jit())));
      unwrap(await fixtures.disable(lease));
      expect(await world.store.findExternalIdentity(lease.storageKey, signed.link.subject)).toEqual(signed.link);
      const input = fixtures.signIn(
        lease,
        { kind: 'sign_in', jit: null },
        {
          assertion: fixtures.assertion(signed.link.subject),
        },
      );
      expect(await world.store.linkExternalIdentity(input)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      const receipt = { lease, assertion: fixtures.assertion(), at: world.clock.now() };
      expect(await world.store.recordExternalIdentityReplay(receipt)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      expect(await leftovers(input)).toEqual([0, 0, 0, 0, 0, 0]);
    });

    it(`provisions one user and one link under ${world.concurrency} concurrent JIT sign-ins of one new subject`, async () => {
      const lease = await fixtures.provider();
      const subject = fixtures.assertion().subject;
      const inputs = Array.from({ length: world.concurrency }, () =>
        fixtures.signIn(lease, fixtures.jit(), { assertion: fixtures.assertion(subject) }),
      );
      const { winners, codes } = partition(await Promise.all(inputs.map((i) => world.store.linkExternalIdentity(i))));
      // One provisions; the others either sign in through its link or lose the race on the link key.
      expect(winners.filter((winner) => winner.provisioned)).toHaveLength(1);
      const [provisioned] = winners.filter((winner) => winner.provisioned);
      for (const winner of winners) expect(winner.link).toEqual(provisioned!.link);
      for (const code of codes) expect(['already_exists', 'version_conflict']).toContain(code);
      const userIds = inputs.map((i) => (i.mode.kind === 'sign_in' ? i.mode.jit!.user.id : ''));
      expect(await world.rows.count('users', `id in (${userIds.map(() => '?').join(', ')})`, userIds)).toBe(1);
      expect(await world.rows.count('external_identities', 'provider = ?', [lease.storageKey])).toBe(1);
      expect(await world.rows.count('memberships', 'organization_id = ?', [lease.organizationId])).toBe(1);
    });
  });

  describe('FEDERATION_JIT_ATOMICITY', () => {
    it('provisions an active user without email, a viewer membership and the link, never merging by email', async () => {
      const lease = await fixtures.provider();
      const email = `same-${Date.now().toString(36)}@example.test`;
      const existing = await fixtures.member(lease.organizationId, { email });
      const input = fixtures.signIn(lease, fixtures.jit(email));
      const signed = unwrap(await world.store.linkExternalIdentity(input));
      expect(signed).toMatchObject({ linked: true, provisioned: true, previous: null });
      expect(signed.user).toMatchObject({ state: 'active', primaryEmail: null, sessionEpoch: 0, version: 0 });
      expect(signed.user.id).not.toBe(existing);
      expect(signed.membership).toMatchObject({
        organizationId: lease.organizationId,
        role: 'viewer',
        state: 'active',
      });
      expect(signed.link).toMatchObject({ userId: signed.user.id, organizationId: lease.organizationId });
      expect(await world.store.findUser(signed.user.id)).toEqual(signed.user);
      expect((await world.store.findUserByEmail(email))!.id).toBe(existing);
      expect(await leftovers(input)).toEqual([1, 1, 1, 1, 1, 1]);
    });

    it('without JIT answers not_found for an unknown subject and writes nothing', async () => {
      const lease = await fixtures.provider();
      const input = fixtures.signIn(lease, { kind: 'sign_in', jit: null });
      expect(await world.store.linkExternalIdentity(input)).toEqual({ ok: false, code: 'not_found' });
      expect(await leftovers(input)).toEqual([0, 0, 0, 0, 0, 0]);
    });

    it('leaves no user or membership behind on a replay, a disabled provider or a suspended organization', async () => {
      const lease = await fixtures.provider();
      const first = fixtures.signIn(lease, fixtures.jit());
      unwrap(await world.store.linkExternalIdentity(first));
      const replay = fixtures.signIn(lease, fixtures.jit(), { assertion: first.assertion });
      expect(await world.store.linkExternalIdentity(replay)).toEqual({ ok: false, code: 'replay_detected' });
      expect((await leftovers(replay)).slice(0, 3)).toEqual([0, 0, 0]);

      const suspended = await fixtures.provider();
      await world.rows.sql(`update tessera_identity.organizations set state = 'suspended' where id = ?`, [
        suspended.organizationId,
      ]);
      const inSuspended = fixtures.signIn(suspended, fixtures.jit());
      expect(await world.store.linkExternalIdentity(inSuspended)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await leftovers(inSuspended)).toEqual([0, 0, 0, 0, 0, 0]);

      const disabled = await fixtures.provider();
      unwrap(await fixtures.disable(disabled));
      const inDisabled = fixtures.signIn(disabled, fixtures.jit());
      expect(await world.store.linkExternalIdentity(inDisabled)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      expect(await leftovers(inDisabled)).toEqual([0, 0, 0, 0, 0, 0]);
    });

    it('rolls the JIT user back when the session it would get carries the wrong provenance', async () => {
      const lease = await fixtures.provider();
      const input = fixtures.signIn(lease, fixtures.jit());
      const sessionFor = input.sessionFor;
      const stale = {
        ...input,
        sessionFor: (...args: Parameters<typeof sessionFor>) => {
          const session = sessionFor(...args);
          return { ...session, federation: { ...session.federation!, providerSessionEpoch: lease.sessionEpoch + 1 } };
        },
      };
      expect(await world.store.linkExternalIdentity(stale)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await leftovers(input)).toEqual([0, 0, 0, 0, 0, 0]);
    });
  });
}
