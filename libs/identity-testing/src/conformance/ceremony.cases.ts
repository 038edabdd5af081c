import { describe, expect, it } from '@jest/globals';
import { newTestChallenge, newTestCredential } from '../identity-test.credentials.js';
import { testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CredentialFixtures } from './credential.fixtures.js';

/** CHALLENGE_SINGLE_CONSUMPTION and the challenge lifecycle (identity-model §5.3, §11.1). */
export function ceremonyCases(world: ConformanceWorld): void {
  const fixtures = new CredentialFixtures(world);

  describe('CHALLENGE_SINGLE_CONSUMPTION', () => {
    it('creates a pending challenge at version 0 with its audit; the same challenge digest again is a unique_constraint', async () => {
      const userId = await world.rows.user();
      const at = world.tick();
      const challenge = newTestChallenge({ at, purpose: 'step_up', userId, organizationId: world.organizationId });
      const audit = fixtures.audit('webauthn.ceremony_started', userId);
      const created = unwrap(await world.store.createChallenge({ challenge, at, audits: [audit] }));
      expect(created).toEqual({
        ...challenge,
        state: 'pending',
        activatedAt: null,
        failureReason: null,
        version: 0,
        createdAt: at,
        updatedAt: at,
      });
      expect(await world.store.findChallenge(challenge.id)).toEqual(created);
      expect(await world.storedAudits([audit])).toBe(1);

      const again = { ...newTestChallenge({ at }), challengeDigest: challenge.challengeDigest };
      const repeated = fixtures.audit('webauthn.ceremony_started', null);
      expect(await world.store.createChallenge({ challenge: again, at, audits: [repeated] })).toEqual({
        ok: false,
        code: 'unique_constraint',
      });
      expect(await world.store.findChallenge(again.id)).toBeNull();
      expect(await world.storedAudits([repeated])).toBe(0);
    });

    it(`ends a challenge exactly once under ${world.concurrency} concurrent consumptions`, async () => {
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      world.tick();
      const inputs = Array.from({ length: world.concurrency }, (_, i) => ({
        challengeId: challenge.id,
        expectedVersion: 0,
        outcome: i % 2 === 0 ? ('consumed' as const) : ('failed' as const),
        failureReason: i % 2 === 0 ? null : 'invalid_credentials',
        at: world.clock.now(),
        audits: [fixtures.audit('webauthn.ceremony_finished', null, { type: 'challenge', id: challenge.id })],
      }));
      const results = await Promise.all(inputs.map((input) => world.store.consumeChallenge(input)));
      const { winners, codes, indexes } = partition(results);
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['version_conflict', 'challenge_not_pending']).toContain(code);
      const winner = inputs[indexes[0]!]!;
      expect(winners[0]).toMatchObject({ state: winner.outcome, failureReason: winner.failureReason, version: 1 });
      expect(await world.store.findChallenge(challenge.id)).toEqual(winners[0]);
      expect(await world.storedAudits(inputs.flatMap((input) => input.audits))).toBe(1);
    });

    it('ends a challenge failed or expired with its reason; afterwards, or at a stale version, or unknown, it cannot be ended', async () => {
      const failed = await fixtures.challenge();
      const at = world.tick();
      const end = (challengeId: string, expectedVersion: number, outcome: 'consumed' | 'failed' | 'expired') =>
        world.store.consumeChallenge({
          challengeId,
          expectedVersion,
          outcome,
          failureReason: outcome === 'consumed' ? null : `webauthn_${outcome}`,
          at,
          audits: [],
        });
      expect(unwrap(await end(failed.id, 0, 'failed'))).toEqual({
        ...failed,
        state: 'failed',
        failureReason: 'webauthn_failed',
        version: 1,
        updatedAt: at,
      });
      expect(await end(failed.id, 1, 'consumed')).toEqual({ ok: false, code: 'challenge_not_pending' });

      const expired = await fixtures.challenge({ ttlSeconds: 60 });
      world.clock.set(expired.expiresAt);
      expect(unwrap(await end(expired.id, 0, 'expired'))).toMatchObject({ state: 'expired', version: 1 });

      const pending = await fixtures.challenge();
      expect(await end(pending.id, 3, 'consumed')).toEqual({ ok: false, code: 'version_conflict' });
      expect(await world.store.findChallenge(pending.id)).toEqual(pending);
      expect(await end(testUuidV7(), 0, 'consumed')).toEqual({ ok: false, code: 'not_found' });
      expect(await end('not-a-uuid', 0, 'consumed')).toEqual({ ok: false, code: 'not_found' });
    });

    it(`lets exactly one of ${world.concurrency} concurrent finishes of one registration ceremony register a passkey`, async () => {
      const userId = await world.rows.user();
      const challenge = await fixtures.challenge({ userId });
      world.tick();
      const inputs = Array.from({ length: world.concurrency }, () => fixtures.registration(challenge, userId));
      const results = await Promise.all(inputs.map((input) => world.store.completeCredentialRegistration(input)));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['version_conflict', 'challenge_not_pending']).toContain(code);
      expect(await world.rows.count('credentials', 'user_id = ?', [userId])).toBe(1);
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'consumed', version: 1 });
      expect(await world.storedAudits(inputs.flatMap((input) => input.audits))).toBe(1);
      expect(await world.storedAudits(inputs.flatMap((input) => input.rejection.audits))).toBe(0);
    });

    it('refuses a completion on an expired ceremony or one of another purpose and writes nothing', async () => {
      const userId = await world.rows.user();
      const expiring = await fixtures.challenge({ userId });
      world.clock.set(expiring.expiresAt);
      const late = fixtures.registration(expiring, userId);
      expect(await world.store.completeCredentialRegistration(late)).toEqual({ ok: false, code: 'challenge_expired' });
      expect(await world.store.findChallenge(expiring.id)).toEqual(expiring);

      const signIn = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const crossed = fixtures.registration(signIn, userId);
      expect(await world.store.completeCredentialRegistration(crossed)).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      const disguised = { ...crossed, claim: { ...crossed.claim, purpose: 'webauthn_registration' as const } };
      expect(await world.store.completeCredentialRegistration(disguised)).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await world.store.findChallenge(signIn.id)).toEqual(signIn);
      expect(await world.rows.count('credentials', 'user_id = ?', [userId])).toBe(0);
      expect(await world.storedAudits([late, crossed].flatMap((i) => [...i.audits, ...i.rejection.audits]))).toBe(0);
      expect(await world.store.findCredentialByWebAuthnId(newTestCredential({ userId }).webAuthnId)).toBeNull();
    });
  });
}
