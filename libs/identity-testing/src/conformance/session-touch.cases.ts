import { describe, expect, it } from '@jest/globals';
import { newTestSession, testUuidV7 } from '../identity-test.rows.js';
import { expectRetryableConflicts, partition, unwrap, type ConformanceWorld } from './conformance.world.js';

const MINUTE = 60_000;

/** SESSION_IDLE_TOUCH and CONCURRENT_RETRY_SEMANTICS (identity-model §5.1, §9.2, §11.1). */
export function sessionTouchCases(world: ConformanceWorld): void {
  describe('SESSION_IDLE_TOUCH', () => {
    it('bumps version, lastUsedAt and idleExpiresAt and writes no audit event', async () => {
      const { sessions } = await world.userWithSessions(1);
      const session = sessions[0]!;
      const audits = await world.rows.count('audit_events');
      const now = world.tick();
      const idleExpiresAt = new Date(now.getTime() + 30 * MINUTE);
      const touched = unwrap(
        await world.store.touchIdentitySession({
          sessionId: session.id,
          expectedVersion: session.version,
          lastUsedAt: now,
          idleExpiresAt,
        }),
      );
      expect(touched).toEqual({ ...session, version: session.version + 1, lastUsedAt: now, idleExpiresAt });
      expect(await world.store.findSession(session.id)).toEqual(touched);
      expect(await world.rows.count('audit_events')).toBe(audits);
    });

    it('never moves the idle expiry past the absolute expiry', async () => {
      const { sessions } = await world.userWithSessions(1);
      const session = sessions[0]!;
      const touched = unwrap(
        await world.store.touchIdentitySession({
          sessionId: session.id,
          expectedVersion: 0,
          lastUsedAt: world.tick(),
          idleExpiresAt: new Date(session.absoluteExpiresAt.getTime() + 60 * MINUTE),
        }),
      );
      expect(touched.idleExpiresAt).toEqual(session.absoluteExpiresAt);
      expect(touched.absoluteExpiresAt).toEqual(session.absoluteExpiresAt);
    });

    it('refuses to touch an unknown, revoked or idle-expired session and changes nothing', async () => {
      const now = world.tick();
      const touch = (sessionId: string, lastUsedAt = now) =>
        world.store.touchIdentitySession({
          sessionId,
          expectedVersion: 0,
          lastUsedAt,
          idleExpiresAt: new Date(lastUsedAt.getTime() + MINUTE),
        });
      expect(await touch(testUuidV7(now))).toEqual({ ok: false, code: 'not_found' });
      expect(await touch('not-a-session-id')).toEqual({ ok: false, code: 'not_found' });

      const userId = await world.rows.user();
      const revoked = newTestSession({ userId, at: now });
      await world.rows.session(revoked, { state: 'revoked' });
      expect(await touch(revoked.id)).toEqual({ ok: false, code: 'session_not_active' });

      const { sessions } = await world.userWithSessions(1);
      const idle = sessions[0]!;
      expect(await touch(idle.id, new Date(idle.idleExpiresAt.getTime() + 1))).toEqual({
        ok: false,
        code: 'session_expired',
      });
      expect(await world.store.findSession(idle.id)).toEqual(idle);
    });
  });

  describe('CONCURRENT_RETRY_SEMANTICS', () => {
    it(`lets exactly one of ${world.concurrency} concurrent touches of one version win; the losers get retryable version_conflict`, async () => {
      const { sessions } = await world.userWithSessions(1);
      const session = sessions[0]!;
      const now = world.tick();
      const results = await Promise.all(
        Array.from({ length: world.concurrency }, (_, i) =>
          world.store.touchIdentitySession({
            sessionId: session.id,
            expectedVersion: session.version,
            lastUsedAt: new Date(now.getTime() + i),
            idleExpiresAt: new Date(now.getTime() + i + 30 * MINUTE),
          }),
        ),
      );
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      expectRetryableConflicts(codes);
      expect(await world.store.findSession(session.id)).toEqual(winners[0]);
      expect(winners[0]!.version).toBe(session.version + 1);
    });

    it('refuses a rotation carrying a stale version with retryable version_conflict and writes nothing', async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const session = sessions[0]!;
      const now = world.tick();
      const touched = unwrap(
        await world.store.touchIdentitySession({
          sessionId: session.id,
          expectedVersion: 0,
          lastUsedAt: now,
          idleExpiresAt: new Date(now.getTime() + 30 * MINUTE),
        }),
      );
      const audit = world.audit('session.rotated', { type: 'user', userId }, { type: 'session', id: session.id });
      const result = await world.store.rotateSession({
        sessionId: session.id,
        expectedVersion: session.version,
        expectedUserId: userId,
        replacement: newTestSession({ userId, at: now, familyId: session.familyId, rotationCounter: 1 }),
        audit,
      });
      expectRetryableConflicts([result.ok ? 'ok' : result.code]);
      expect(await world.store.findSession(session.id)).toEqual(touched);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(1);
      expect(await world.storedAudits([audit])).toBe(0);
    });

    it(`advances the epoch by exactly one per revocation under ${world.concurrency} concurrent epoch revocations`, async () => {
      const { userId } = await world.userWithSessions(2, { sessionEpoch: 4 });
      const now = world.tick();
      const audits = Array.from({ length: world.concurrency }, () =>
        world.audit('session.revoked', { type: 'user', userId }, { type: 'user', id: userId }),
      );
      const results = await Promise.all(
        audits.map((audit) =>
          world.store.revokeUserSessions({
            userId,
            exceptSessionId: null,
            reason: 'revoke_all',
            revokedAt: now,
            audit,
          }),
        ),
      );
      const epochs = results.map((result) => unwrap(result).sessionEpoch).sort((a, b) => a - b);
      expect(epochs).toEqual(Array.from({ length: world.concurrency }, (_, i) => 5 + i));
      expect((await world.store.findUser(userId))!.sessionEpoch).toBe(4 + world.concurrency);
      const revoked = results.flatMap((result) => unwrap(result).revokedSessionIds);
      expect(revoked).toHaveLength(2);
      expect(await world.storedAudits(audits)).toBe(world.concurrency);
    });
  });
}
