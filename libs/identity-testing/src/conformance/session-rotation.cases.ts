import { describe, expect, it } from '@jest/globals';
import type { SessionRecord } from '@tessera/identity';
import { newTestSession } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';

const DAY = 86_400_000;

/** Session rotation and single revocation (identity-model §5.1, §9.2). */
export function sessionRotationCases(world: ConformanceWorld): void {
  function rotation(userId: string, old: SessionRecord, over: { absoluteSeconds?: number } = {}) {
    const at = world.clock.now();
    return {
      sessionId: old.id,
      expectedVersion: old.version,
      expectedUserId: userId,
      replacement: newTestSession({
        userId,
        at,
        familyId: old.familyId,
        rotationCounter: old.rotationCounter + 1,
        absoluteSeconds: over.absoluteSeconds,
      }),
      audit: world.audit('session.rotated', { type: 'user', userId }, { type: 'session', id: old.id }),
    };
  }

  describe('session rotation', () => {
    it('marks the predecessor rotated towards a replacement of the same family, counter + 1, at the user epoch, with its audit', async () => {
      const { userId, sessions } = await world.userWithSessions(1, { sessionEpoch: 2 });
      const old = sessions[0]!;
      world.tick();
      const input = rotation(userId, old);
      const { previous, session } = unwrap(await world.store.rotateSession(input));
      expect(previous).toEqual({
        ...old,
        state: 'rotated',
        rotatedToId: input.replacement.id,
        version: old.version + 1,
      });
      expect(session).toMatchObject({
        id: input.replacement.id,
        familyId: old.familyId,
        userId,
        state: 'active',
        rotationCounter: old.rotationCounter + 1,
        userSessionEpoch: 2,
        rotatedToId: null,
        version: 0,
        tokenDigest: input.replacement.tokenDigest,
      });
      expect(await world.store.findSession(old.id)).toEqual(previous);
      expect(await world.store.findSession(session.id)).toEqual(session);
      expect(await world.storedAudits([input.audit])).toBe(1);
    });

    it('never extends the absolute expiry of the family', async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const old = sessions[0]!;
      world.tick();
      const input = rotation(userId, old, { absoluteSeconds: 30 * DAY });
      expect(input.replacement.absoluteExpiresAt.getTime()).toBeGreaterThan(old.absoluteExpiresAt.getTime());
      const { session } = unwrap(await world.store.rotateSession(input));
      expect(session.absoluteExpiresAt).toEqual(old.absoluteExpiresAt);
      expect(session.idleExpiresAt.getTime()).toBeLessThanOrEqual(old.absoluteExpiresAt.getTime());
    });

    it(`mints at most one replacement under ${world.concurrency} concurrent rotations of one session`, async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const old = sessions[0]!;
      world.tick();
      const inputs = Array.from({ length: world.concurrency }, () => rotation(userId, old));
      const { winners, codes } = partition(await Promise.all(inputs.map((input) => world.store.rotateSession(input))));
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['session_not_active', 'version_conflict']).toContain(code);
      expect(await world.rows.count('sessions', 'family_id = ?', [old.familyId])).toBe(2);
      expect(await world.rows.count('sessions', 'family_id = ? and state = ?', [old.familyId, 'active'])).toBe(1);
      expect(await world.storedAudits(inputs.map((input) => input.audit))).toBe(1);
      expect((await world.store.findSession(old.id))!.rotatedToId).toBe(winners[0]!.session.id);
    });

    it('rejects rotating a predecessor of another user and writes nothing', async () => {
      const victim = await world.userWithSessions(1);
      const attacker = await world.userWithSessions(1);
      const old = victim.sessions[0]!;
      const input = rotation(attacker.userId, old);
      expect(await world.store.rotateSession(input)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findSession(old.id)).toEqual(old);
      expect(await world.store.findSession(input.replacement.id)).toBeNull();
      expect(await world.storedAudits([input.audit])).toBe(0);
    });

    it('refuses to rotate a session that was already rotated, superseded by an epoch advance or idle-expired', async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const old = sessions[0]!;
      unwrap(await world.store.rotateSession(rotation(userId, old)));
      const again = { ...rotation(userId, old), expectedVersion: old.version + 1 };
      expect(await world.store.rotateSession(again)).toEqual({ ok: false, code: 'session_not_active' });

      const stale = await world.userWithSessions(1, { sessionEpoch: 0 });
      await world.rows.sql('update tessera_identity.users set session_epoch = 1 where id = ?', [stale.userId]);
      const superseded = rotation(stale.userId, stale.sessions[0]!);
      expect(await world.store.rotateSession(superseded)).toEqual({ ok: false, code: 'session_not_active' });
      expect(await world.store.findSession(superseded.replacement.id)).toBeNull();

      const idle = await world.userWithSessions(1);
      world.clock.set(idle.sessions[0]!.idleExpiresAt);
      const expired = rotation(idle.userId, idle.sessions[0]!);
      expect(await world.store.rotateSession(expired)).toEqual({ ok: false, code: 'session_expired' });
      expect(await world.store.findSession(idle.sessions[0]!.id)).toEqual(idle.sessions[0]);
      expect(await world.storedAudits([superseded.audit, expired.audit])).toBe(0);
    });
  });

  describe('single session revocation', () => {
    it('revokes one active session with its reason and audit; a repeat finds it not active; another user gets not_found', async () => {
      const { userId, sessions } = await world.userWithSessions(2);
      const [target, other] = sessions as [SessionRecord, SessionRecord];
      const stranger = await world.rows.user();
      const revokedAt = world.tick();
      const revoke = (byUserId: string) => {
        const audit = world.audit(
          'session.revoked',
          { type: 'user', userId: byUserId },
          { type: 'session', id: target.id },
        );
        return {
          audit,
          run: world.store.revokeSession({
            sessionId: target.id,
            userId: byUserId,
            reason: 'logout',
            revokedAt,
            audit,
          }),
        };
      };

      const foreign = revoke(stranger);
      expect(await foreign.run).toEqual({ ok: false, code: 'not_found' });
      expect(await world.storedAudits([foreign.audit])).toBe(0);

      const own = revoke(userId);
      const revoked = unwrap(await own.run);
      expect(revoked).toEqual({
        ...target,
        state: 'revoked',
        revokedAt,
        revokedReason: 'logout',
        version: target.version + 1,
      });
      expect(await world.storedAudits([own.audit])).toBe(1);
      expect(await world.store.findSession(other.id)).toEqual(other);

      const repeat = revoke(userId);
      expect(await repeat.run).toEqual({ ok: false, code: 'session_not_active' });
      expect(await world.storedAudits([repeat.audit])).toBe(0);
    });
  });
}
