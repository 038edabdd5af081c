import { describe, expect, it } from '@jest/globals';
import type { IdentityStore, RecoveryCodeRecord } from '@tessera/identity';
import { newTestCredential, newTestRecoveryCodes } from '../identity-test.credentials.js';
import { newTestSession, testDigest } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CredentialFixtures } from './credential.fixtures.js';

type EnrollmentInput = Parameters<IdentityStore['completeRecoveryEnrollment']>[0];

/** RECOVERY_REUSE_AND_GENERATION and recovery enrollment (identity-model §5.6, §11.1). */
export function recoveryCases(world: ConformanceWorld): void {
  const fixtures = new CredentialFixtures(world);

  function replace(userId: string, expectedGeneration: number | null, options: { legacy?: boolean } = {}) {
    const audit = fixtures.audit('recovery.codes_replaced', userId, { type: 'user', id: userId });
    const codes = newTestRecoveryCodes(10, options);
    const input = { userId, expectedGeneration, codes, at: world.clock.now(), audit };
    return { input, run: world.store.replaceRecoveryCodes(input) };
  }

  function use(code: RecoveryCodeRecord) {
    const at = world.clock.now();
    const session = newTestSession({ userId: code.userId, at, method: 'recovery_code', absoluteSeconds: 900 });
    const audit = fixtures.audit('recovery.code_used', code.userId, { type: 'session', id: session.id });
    const input = { codeId: code.id, expectedVersion: code.version, at, session, audit };
    return { input, run: world.store.consumeRecoveryCode(input) };
  }

  describe('RECOVERY_REUSE_AND_GENERATION', () => {
    it('replaces codes by generation CAS: generation 0, then 1 revoking all of 0; a stale generation is a version_conflict', async () => {
      const userId = await world.rows.user();
      const first = replace(userId, -1);
      expect(unwrap(await first.run)).toEqual({ generation: 0 });
      const generation0 = await world.store.listRecoveryCodesForUser(userId);
      expect(generation0).toHaveLength(10);
      expect(generation0.every((c) => c.generation === 0 && c.state === 'active' && c.version === 0)).toBe(true);
      const { secretDigest } = first.input.codes[0]!;
      const found = await world.store.findRecoveryCodeByDigests([secretDigest]);
      expect(found).toMatchObject({ userId, secretDigest, publicSelector: null });

      const at = world.tick();
      const second = replace(userId, 0);
      expect(unwrap(await second.run)).toEqual({ generation: 1 });
      const listed = await world.store.listRecoveryCodesForUser(userId);
      expect(listed.map((c) => [c.generation, c.state])).toEqual([
        ...Array(10).fill([0, 'revoked']),
        ...Array(10).fill([1, 'active']),
      ]);
      expect(listed[0]).toMatchObject({ version: 1, updatedAt: at, consumedAt: null });

      const stale = replace(userId, 0);
      expect(await stale.run).toEqual({ ok: false, code: 'version_conflict' });
      expect(await world.store.listRecoveryCodesForUser(userId)).toEqual(listed);
      expect(await world.storedAudits([first.input.audit, second.input.audit, stale.input.audit])).toBe(2);
    });

    it(`uses one code once under ${world.concurrency} concurrent attempts: one restricted session at the user's epoch`, async () => {
      const userId = await world.rows.user({ sessionEpoch: 4 });
      await fixtures.codes(userId);
      const [code] = await world.store.listRecoveryCodesForUser(userId);
      world.tick();
      const attempts = Array.from({ length: world.concurrency }, () => use(code!));
      const { winners, codes } = partition(await Promise.all(attempts.map((a) => a.run)));
      expect(winners).toHaveLength(1);
      for (const failure of codes) expect(['recovery_code_not_active', 'version_conflict']).toContain(failure);
      expect(winners[0]!.code).toMatchObject({ state: 'consumed', consumedAt: world.clock.now(), version: 1 });
      expect(winners[0]!.session).toMatchObject({
        userId,
        state: 'active',
        authenticationMethod: 'recovery_code',
        assurance: 'recovery',
        userSessionEpoch: 4,
      });
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(1);
      expect(await world.storedAudits(attempts.map((a) => a.input.audit))).toBe(1);
      expect(await use(winners[0]!.code).run).toEqual({ ok: false, code: 'recovery_code_not_active' });
    });

    it('refuses a code of a replaced generation and a stale version, writing nothing', async () => {
      const userId = await world.rows.user();
      await fixtures.codes(userId);
      const [old] = await world.store.listRecoveryCodesForUser(userId);
      await fixtures.codes(userId);
      expect(await use(old!).run).toEqual({ ok: false, code: 'recovery_code_not_active' });
      const current = (await world.store.listRecoveryCodesForUser(userId)).find((c) => c.state === 'active')!;
      expect(await use({ ...current, version: 5 }).run).toEqual({ ok: false, code: 'version_conflict' });
      expect(await world.store.findRecoveryCodeByDigests([current.secretDigest])).toEqual(current);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(0);
    });
  });

  describe('finding a code', () => {
    it('finds a code by any of several digests (one per pepper version) in one read, and nothing for unknown digests', async () => {
      const userId = await world.rows.user();
      const { input, run } = replace(userId, -1);
      expect(unwrap(await run)).toEqual({ generation: 0 });
      const wanted = input.codes[4]!.secretDigest;
      const otherVersion = { ...testDigest(), keyVersion: 'v9' };
      const sameBytesOtherVersion = { ...wanted, keyVersion: 'v9' };
      const found = await world.store.findRecoveryCodeByDigests([otherVersion, sameBytesOtherVersion, wanted]);
      expect(found).toMatchObject({ id: input.codes[4]!.id, userId, generation: 0, state: 'active' });
      expect(await world.store.findRecoveryCodeByDigests([otherVersion, sameBytesOtherVersion])).toBeNull();
      expect(await world.store.findRecoveryCodeByDigests([{ ...wanted, keyVersion: null }])).toBeNull();
      expect(await world.store.findRecoveryCodeByDigests([])).toBeNull();
    });

    it('still finds a code of the earlier format by its selector', async () => {
      const userId = await world.rows.user();
      const legacy = replace(userId, -1, { legacy: true });
      expect(unwrap(await legacy.run)).toEqual({ generation: 0 });
      const [code] = legacy.input.codes;
      expect(await world.store.findRecoveryCodeBySelector(code!.publicSelector!)).toMatchObject({
        id: code!.id,
        publicSelector: code!.publicSelector,
        secretDigest: code!.secretDigest,
      });
      expect(await world.store.findRecoveryCodeByDigests([code!.secretDigest])).toMatchObject({ id: code!.id });
    });
  });

  describe('recovery enrollment', () => {
    async function restrictedUser() {
      const { userId, sessions } = await world.userWithSessions(2, { sessionEpoch: 1 });
      const restricted = newTestSession({ userId, at: world.clock.now(), method: 'invitation', absoluteSeconds: 900 });
      await world.rows.session(restricted, { userSessionEpoch: 1 });
      const prior = await fixtures.codes(userId);
      const challenge = await fixtures.challenge({ userId });
      const at = world.tick();
      const credential = newTestCredential({ userId });
      const input: EnrollmentInput = {
        claim: fixtures.claim(challenge),
        at,
        credential,
        restrictedSessionId: restricted.id,
        recoveryCodes: newTestRecoveryCodes(),
        audits: [fixtures.audit('recovery.enrollment_completed', userId, { type: 'credential', id: credential.id })],
        rejection: fixtures.rejection(challenge),
      };
      return { userId, sessionIds: [...sessions.map((s) => s.id), restricted.id], prior, challenge, input };
    }

    it('completes atomically: passkey, epoch + 1, every session revoked (the restricted one included), a new code generation, audits', async () => {
      const { userId, sessionIds, prior, challenge, input } = await restrictedUser();
      const result = unwrap(await world.store.completeRecoveryEnrollment(input));
      expect(result).toEqual({
        credential: await world.store.findCredential(input.credential.id),
        generation: prior.generation + 1,
        revokedSessionIds: [...sessionIds].sort(),
        sessionEpoch: 2,
      });
      expect((await world.store.findUser(userId))!.sessionEpoch).toBe(2);
      for (const id of sessionIds) {
        expect(await world.store.findSession(id)).toMatchObject({
          state: 'revoked',
          revokedReason: 'recovery_enrollment_completed',
          revokedAt: input.at,
        });
      }
      const codes = await world.store.listRecoveryCodesForUser(userId);
      expect(codes.filter((c) => c.state === 'active').map((c) => c.generation)).toEqual(Array(10).fill(1));
      expect(codes.filter((c) => c.state === 'revoked')).toHaveLength(10);
      expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'consumed', version: 1 });
      expect(await world.storedAudits(input.audits)).toBe(1);
    });

    it('rejects when the restricted session was revoked meanwhile, or the WebAuthn id is taken: only the failed ceremony and its rejection audit commit', async () => {
      const takenBy = await fixtures.passkey(await world.rows.user());
      for (const breakIt of ['revoke_restricted', 'duplicate_id'] as const) {
        const { userId, challenge, input: base } = await restrictedUser();
        const restrictedId = base.restrictedSessionId;
        if (breakIt === 'revoke_restricted')
          await world.rows.sql(
            "update tessera_identity.sessions set state = 'revoked', revoked_at = ?, revoked_reason = 'logout' where id = ?",
            [base.at, restrictedId],
          );
        const input =
          breakIt === 'duplicate_id'
            ? { ...base, credential: newTestCredential({ userId, webAuthnId: takenBy.webAuthnId }) }
            : base;
        const before = {
          sessions: await world.store.listSessionsForUser(userId),
          codes: await world.store.listRecoveryCodesForUser(userId),
        };
        expect(await world.store.completeRecoveryEnrollment(input)).toEqual({
          ok: false,
          code: breakIt === 'duplicate_id' ? 'unique_constraint' : 'session_not_active',
        });
        expect(await world.store.findCredential(input.credential.id)).toBeNull();
        expect((await world.store.findUser(userId))!.sessionEpoch).toBe(1);
        expect(await world.store.listSessionsForUser(userId)).toEqual(before.sessions);
        expect(await world.store.listRecoveryCodesForUser(userId)).toEqual(before.codes);
        expect(await world.store.findChallenge(challenge.id)).toMatchObject({ state: 'failed', version: 1 });
        expect(await world.storedAudits(input.rejection.audits)).toBe(1);
        expect(await world.storedAudits(input.audits)).toBe(0);
      }
    });
  });
}
