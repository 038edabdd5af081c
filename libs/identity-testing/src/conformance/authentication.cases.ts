import { describe, expect, it } from '@jest/globals';
import type { CredentialRecord } from '@tessera/identity';
import { newTestSession, testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CredentialFixtures } from './credential.fixtures.js';

const DAY = 86_400_000;

/** Passkey sign-in and step-up completion (identity-model §5.1–5.3, §9.2). */
export function authenticationCases(world: ConformanceWorld): void {
  const fixtures = new CredentialFixtures(world);

  async function revoke(credential: CredentialRecord): Promise<void> {
    const audit = fixtures.audit('credential.revoked', credential.userId);
    const input = { credentialId: credential.id, userId: credential.userId, expectedVersion: credential.version };
    unwrap(await world.store.mutateCredential({ ...input, change: { kind: 'revoke' }, at: world.clock.now(), audit }));
  }

  describe('passkey authentication completion', () => {
    it("signs in: consumes the ceremony, stores the counter, backup state and last use, and issues a passkey session at the user's epoch", async () => {
      const userId = await world.rows.user({ sessionEpoch: 3 });
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const at = world.tick();
      const input = fixtures.authentication(challenge, credential, { signCount: 5, backedUp: true });
      const result = unwrap(await world.store.completeCredentialAuthentication(input));
      expect(result.credential).toEqual({
        ...credential,
        signCount: 5,
        backedUp: true,
        lastUsedAt: at,
        updatedAt: at,
        version: 1,
      });
      expect(result.previous).toBeNull();
      expect(result.session).toMatchObject({
        id: input.session.id,
        familyId: input.session.id,
        userId,
        state: 'active',
        assurance: 'passkey',
        authenticationMethod: 'passkey',
        userSessionEpoch: 3,
        rotationCounter: 0,
      });
      expect(await world.store.findSession(input.session.id)).toEqual(result.session);
      expect(await world.store.findCredential(credential.id)).toEqual(result.credential);
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'consumed', version: 1 });
      expect(await world.storedAudits(input.audits)).toBe(1);
      expect(await world.storedAudits(input.rejection.audits)).toBe(0);
    });

    it('never lowers a stored sign counter, on the one-statement sign-in and on the transactional step-up', async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const credential = await fixtures.passkey(userId, { signCount: 9 });
      const signIn = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const signedIn = unwrap(
        await world.store.completeCredentialAuthentication(
          fixtures.authentication(signIn, credential, { signCount: 0 }),
        ),
      );
      expect(signedIn.credential.signCount).toBe(9);
      const stepUp = await fixtures.challenge({ purpose: 'step_up', userId });
      const current = sessions[0]!;
      const replacement = {
        ...newTestSession({ userId, at: world.clock.now(), familyId: current.familyId }),
        assurance: 'step_up' as const,
        rotationCounter: current.rotationCounter + 1,
      };
      const steppedUp = unwrap(
        await world.store.completeCredentialAuthentication(
          fixtures.authentication(stepUp, signedIn.credential, {
            signCount: 3,
            session: replacement,
            rotateFrom: { sessionId: current.id, expectedVersion: current.version },
          }),
        ),
      );
      expect(steppedUp.credential.signCount).toBe(9);
      expect((await world.store.findCredential(credential.id))?.signCount).toBe(9);
    });

    it('steps up by rotating the current session into step_up: same family, counter + 1, absolute never extended', async () => {
      const { userId, sessions } = await world.userWithSessions(1, { sessionEpoch: 2 });
      const old = sessions[0]!;
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'step_up', userId });
      const at = world.tick();
      const replacement = {
        ...newTestSession({ userId, at, familyId: old.familyId, absoluteSeconds: 30 * DAY }),
        assurance: 'step_up' as const,
      };
      const rotateFrom = { sessionId: old.id, expectedVersion: old.version };
      const input = fixtures.authentication(challenge, credential, { session: replacement, rotateFrom });
      const { session, previous } = unwrap(await world.store.completeCredentialAuthentication(input));
      expect(previous).toEqual({ ...old, state: 'rotated', rotatedToId: replacement.id, version: old.version + 1 });
      expect(session).toMatchObject({
        id: replacement.id,
        familyId: old.familyId,
        assurance: 'step_up',
        rotationCounter: old.rotationCounter + 1,
        userSessionEpoch: 2,
        absoluteExpiresAt: old.absoluteExpiresAt,
      });
      expect(await world.rows.count('sessions', "user_id = ? and state = 'active'", [userId])).toBe(1);
    });

    it(`mints at most one session under ${world.concurrency} concurrent finishes of one sign-in ceremony`, async () => {
      const userId = await world.rows.user();
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      world.tick();
      const inputs = Array.from({ length: world.concurrency }, () => fixtures.authentication(challenge, credential));
      const results = await Promise.all(inputs.map((input) => world.store.completeCredentialAuthentication(input)));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['version_conflict', 'challenge_not_pending']).toContain(code);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(1);
      expect((await world.store.findCredential(credential.id))!.version).toBe(1);
      expect(await world.storedAudits(inputs.flatMap((input) => input.audits))).toBe(1);
    });

    it("rejects another user's passkey, a revoked passkey and a step-up of another user: failed ceremony with the rejection audit, nothing else", async () => {
      const owner = await world.rows.user();
      const credential = await fixtures.passkey(owner);
      const stranger = await world.rows.user();
      const cases = [
        { code: 'not_found', session: newTestSession({ userId: stranger, at: world.tick() }) },
        { code: 'invalid_transition', purpose: 'step_up' as const, userId: stranger },
      ];
      for (const { code, session, purpose, userId } of cases) {
        const challenge = await fixtures.challenge({ purpose: purpose ?? 'webauthn_authentication', userId });
        const input = fixtures.authentication(challenge, credential, session === undefined ? {} : { session });
        expect(await world.store.completeCredentialAuthentication(input)).toEqual({ ok: false, code });
        expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'failed', version: 1 });
        expect(await world.storedAudits(input.rejection.audits)).toBe(1);
        expect(await world.storedAudits(input.audits)).toBe(0);
      }
      await revoke(credential);
      const revoked = (await world.store.findCredential(credential.id))!;
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const input = fixtures.authentication(challenge, revoked);
      expect(await world.store.completeCredentialAuthentication(input)).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'failed' });
      expect(await world.store.findCredential(credential.id)).toEqual(revoked);
      expect(await world.rows.count('sessions', 'user_id in (?, ?)', [owner, stranger])).toBe(0);
    });

    it('rejects a step-up whose current session was revoked meanwhile, keeping the counter and writing no session', async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const old = sessions[0]!;
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'step_up', userId });
      const revokedAt = world.tick();
      const audit = fixtures.audit('session.revoked', userId);
      unwrap(await world.store.revokeSession({ sessionId: old.id, userId, reason: 'logout', revokedAt, audit }));
      const rotateFrom = { sessionId: old.id, expectedVersion: old.version };
      const input = fixtures.authentication(challenge, credential, { rotateFrom });
      expect(await world.store.completeCredentialAuthentication(input)).toEqual({
        ok: false,
        code: 'session_not_active',
      });
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'failed' });
      expect(await world.store.findCredential(credential.id)).toEqual(credential);
      expect(await world.store.findSession(input.session.id)).toBeNull();
      expect(await world.storedAudits(input.rejection.audits)).toBe(1);
    });

    it('answers a stale credential version with a retryable version_conflict that leaves the ceremony pending', async () => {
      const userId = await world.rows.user();
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      const input = fixtures.authentication(challenge, { ...credential, version: credential.version + 1 });
      expect(await world.store.completeCredentialAuthentication(input)).toEqual({
        ok: false,
        code: 'version_conflict',
      });
      expect(await world.store.findChallenge(challenge.id)).toEqual(challenge);
      expect(await world.store.findCredential(credential.id)).toEqual(credential);
      expect(await world.storedAudits([...input.audits, ...input.rejection.audits])).toBe(0);
    });
  });

  describe('assertion subjects read', () => {
    it('reads the challenge, the credential and its user at once, each as its own read finds it', async () => {
      const userId = await world.rows.user({ sessionEpoch: 4 });
      const credential = await fixtures.passkey(userId);
      const challenge = await fixtures.challenge({ purpose: 'webauthn_authentication' });
      expect(await world.store.findAssertionSubjects(challenge.id, credential.webAuthnId)).toEqual({
        challenge: await world.store.findChallenge(challenge.id),
        credential: await world.store.findCredential(credential.id),
        owner: await world.store.findUser(userId),
      });
    });

    it('answers null for what is absent: an unknown or malformed ceremony id, an unknown or null WebAuthn id', async () => {
      const userId = await world.rows.user();
      const credential = await fixtures.passkey(userId);
      await revoke(credential);
      const revoked = (await world.store.findCredential(credential.id))!;
      const challenge = await fixtures.challenge({ purpose: 'step_up', userId });
      const owner = await world.store.findUser(userId);
      const unknownChallenge = testUuidV7(world.clock.now());
      expect(await world.store.findAssertionSubjects(unknownChallenge, credential.webAuthnId)).toEqual({
        challenge: null,
        credential: revoked,
        owner,
      });
      expect(await world.store.findAssertionSubjects('not-a-uuid', null)).toEqual({
        challenge: null,
        credential: null,
        owner: null,
      });
      expect(await world.store.findAssertionSubjects(challenge.id, 'bm8tc3VjaC1wYXNza2V5')).toEqual({
        challenge,
        credential: null,
        owner: null,
      });
      expect(await world.store.findAssertionSubjects(challenge.id, null)).toEqual({
        challenge,
        credential: null,
        owner: null,
      });
    });
  });
}
