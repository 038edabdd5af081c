import { describe, expect, it } from '@jest/globals';
import type { SessionRecord } from '@tessera/identity';
import { newTestSession, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

/** SESSION_EPOCH_AND_REVOCATION (identity-model §5.1, §11.1). */
export function sessionEpochCases(world: ConformanceWorld): void {
  describe('SESSION_EPOCH_AND_REVOCATION', () => {
    function revokeUserSessions(userId: string, exceptSessionId: string | null) {
      const audit = world.audit('session.revoked', { type: 'user', userId }, { type: 'user', id: userId });
      const reason = exceptSessionId === null ? 'revoke_all' : 'revoke_others';
      return {
        audit,
        run: world.store.revokeUserSessions({ userId, exceptSessionId, reason, revokedAt: world.clock.now(), audit }),
      };
    }

    it('advances the epoch by exactly one, revokes every other active session and keeps the current one at the new epoch', async () => {
      const { userId, sessions } = await world.userWithSessions(3, { sessionEpoch: 7 });
      const [current, ...others] = sessions as [SessionRecord, ...SessionRecord[]];
      const earlier = newTestSession({ userId, at: world.clock.now() });
      await world.rows.session(earlier, { userSessionEpoch: 7, state: 'revoked' });
      const stranger = await world.userWithSessions(1, { sessionEpoch: 7 });
      const earlierRow = await world.store.findSession(earlier.id);
      const revokedAt = world.tick();

      const { audit, run } = revokeUserSessions(userId, current.id);
      const result = unwrap(await run);
      expect(result).toEqual({ revokedSessionIds: others.map((s) => s.id).sort(), sessionEpoch: 8 });
      expect((await world.store.findUser(userId))!.sessionEpoch).toBe(8);
      expect(await world.store.findSession(current.id)).toMatchObject({
        state: 'active',
        userSessionEpoch: 8,
        version: current.version + 1,
      });
      for (const other of others) {
        expect(await world.store.findSession(other.id)).toEqual({
          ...other,
          state: 'revoked',
          revokedAt,
          revokedReason: 'revoke_others',
          version: other.version + 1,
        });
      }
      expect(await world.store.findSession(earlier.id)).toEqual(earlierRow);
      expect(await world.store.findSession(stranger.sessions[0]!.id)).toEqual(stranger.sessions[0]);
      expect((await world.store.findUser(stranger.userId))!.sessionEpoch).toBe(7);
      expect(await world.storedAudits([audit])).toBe(1);
    });

    it('revokes every active session when none is kept', async () => {
      const { userId, sessions } = await world.userWithSessions(3);
      const { run } = revokeUserSessions(userId, null);
      const result = unwrap(await run);
      expect(result).toEqual({ revokedSessionIds: sessions.map((s) => s.id).sort(), sessionEpoch: 1 });
      expect(await world.rows.count('sessions', "user_id = ? and state = 'active'", [userId])).toBe(0);
    });

    it('never keeps a session of a superseded epoch, and then changes nothing', async () => {
      const { userId, sessions } = await world.userWithSessions(2, { sessionEpoch: 2 });
      await world.rows.sql('update tessera_identity.users set session_epoch = 3 where id = ?', [userId]);
      const { audit, run } = revokeUserSessions(userId, sessions[0]!.id);
      expect(await run).toEqual({ ok: false, code: 'session_not_active' });
      expect((await world.store.findUser(userId))!.sessionEpoch).toBe(3);
      for (const session of sessions) expect(await world.store.findSession(session.id)).toEqual(session);
      expect(await world.storedAudits([audit])).toBe(0);
    });

    it("refuses to keep another user's session and refuses an unknown user", async () => {
      const { userId, sessions } = await world.userWithSessions(1);
      const stranger = await world.userWithSessions(1);
      const foreign = revokeUserSessions(userId, stranger.sessions[0]!.id);
      expect(await foreign.run).toEqual({ ok: false, code: 'not_found' });
      expect(await world.store.findSession(sessions[0]!.id)).toEqual(sessions[0]);
      expect((await world.store.findUser(userId))!.sessionEpoch).toBe(0);
      expect(await revokeUserSessions(testUuidV7(), null).run).toEqual({ ok: false, code: 'not_found' });
    });
  });
}
