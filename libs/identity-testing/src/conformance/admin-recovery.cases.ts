import { describe, expect, it } from '@jest/globals';
import type { ChallengeRecord } from '@tessera/identity';
import { newTestSession } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CredentialFixtures } from './credential.fixtures.js';

/** ADMINISTRATIVE_RECOVERY_ACTIVATION (identity-model §5.6, §11.1). */
export function adminRecoveryCases(world: ConformanceWorld): void {
  const fixtures = new CredentialFixtures(world);

  async function ticket(userId: string): Promise<ChallengeRecord> {
    return fixtures.challenge({ purpose: 'account_recovery', userId });
  }

  function activate(ticket: ChallengeRecord) {
    const audit = fixtures.audit('recovery.admin_ticket_delivered', null, { type: 'challenge', id: ticket.id });
    const input = { ticketId: ticket.id, expectedVersion: ticket.version, at: world.clock.now(), audits: [audit] };
    return { audit, run: world.store.activateAdministrativeRecoveryTicket(input) };
  }

  function redeem(ticket: ChallengeRecord, userId = ticket.userId!) {
    const at = world.clock.now();
    const session = newTestSession({ userId, at, method: 'administrative_recovery', absoluteSeconds: 900 });
    const audit = fixtures.audit('recovery.admin_ticket_used', userId, { type: 'challenge', id: ticket.id });
    const input = { ticketId: ticket.id, expectedVersion: ticket.version, at, session, audits: [audit] };
    return { input, run: world.store.redeemAdministrativeRecoveryTicket(input) };
  }

  describe('ADMINISTRATIVE_RECOVERY_ACTIVATION', () => {
    it('creates tickets inactive; an inactive ticket cannot create a session', async () => {
      const userId = await world.rows.user();
      const created = await ticket(userId);
      expect(created).toMatchObject({ purpose: 'account_recovery', state: 'pending', activatedAt: null, version: 0 });
      const attempt = redeem(created);
      expect(await attempt.run).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findChallenge(created.id)).toEqual(created);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(0);
      expect(await world.storedAudits(attempt.input.audits)).toBe(0);
    });

    it('leaves a ticket whose delivery failed inactive: the failed delivery audit changes nothing, cancelling keeps it unactivated, and it can then be neither activated nor redeemed', async () => {
      const userId = await world.rows.user();
      const created = await ticket(userId);
      const at = world.tick();
      const delivered = { ...fixtures.audit('recovery.admin_ticket_delivered', null), outcome: 'failed' as const };
      unwrap(await world.store.appendAuditEvent(delivered));
      expect(await world.store.findChallenge(created.id)).toEqual(created);

      const cancelled = fixtures.audit('recovery.admin_ticket_cancelled', null, { type: 'challenge', id: created.id });
      const failed = unwrap(
        await world.store.consumeChallenge({
          challengeId: created.id,
          expectedVersion: created.version,
          outcome: 'failed',
          failureReason: 'delivery_failed',
          at,
          audits: [cancelled],
        }),
      );
      expect(failed).toEqual({
        ...created,
        state: 'failed',
        failureReason: 'delivery_failed',
        activatedAt: null,
        version: 1,
        updatedAt: at,
      });
      expect(await world.storedAudits([delivered, cancelled])).toBe(2);
      const late = activate(failed);
      expect(await late.run).toEqual({ ok: false, code: 'challenge_not_pending' });
      expect(await redeem(failed).run).toEqual({ ok: false, code: 'challenge_not_pending' });
      expect(await world.store.findChallenge(created.id)).toEqual(failed);
      expect(await world.storedAudits([late.audit])).toBe(0);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(0);
    });

    it("activates once with its audit, then redeems once into a restricted session at the user's epoch", async () => {
      const userId = await world.rows.user({ sessionEpoch: 5 });
      const created = await ticket(userId);
      const at = world.tick();
      const activation = activate(created);
      const active = unwrap(await activation.run);
      expect(active).toEqual({ ...created, activatedAt: at, version: 1, updatedAt: at });
      expect(await world.storedAudits([activation.audit])).toBe(1);
      expect(await activate(active).run).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await activate(created).run).toEqual({ ok: false, code: 'version_conflict' });

      const stranger = await world.rows.user();
      expect(await redeem(active, stranger).run).toEqual({ ok: false, code: 'invalid_transition' });
      world.tick();
      const attempts = Array.from({ length: world.concurrency }, () => redeem(active));
      const { winners, codes } = partition(await Promise.all(attempts.map((a) => a.run)));
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['version_conflict', 'challenge_not_pending']).toContain(code);
      expect(winners[0]!.ticket).toMatchObject({ state: 'consumed', activatedAt: at, version: 2 });
      expect(winners[0]!.session).toMatchObject({
        userId,
        authenticationMethod: 'administrative_recovery',
        assurance: 'recovery',
        userSessionEpoch: 5,
      });
      expect(await world.rows.count('sessions', 'user_id in (?, ?)', [userId, stranger])).toBe(1);
      expect(await world.storedAudits(attempts.flatMap((a) => a.input.audits))).toBe(1);
    });

    it('refuses to activate or redeem an expired ticket and writes nothing', async () => {
      const userId = await world.rows.user();
      const created = await ticket(userId);
      world.clock.set(created.expiresAt);
      expect(await activate(created).run).toEqual({ ok: false, code: 'challenge_expired' });
      await world.rows.sql('update tessera_identity.challenges set activated_at = created_at where id = ?', [
        created.id,
      ]);
      const activated = (await world.store.findChallenge(created.id))!;
      expect(await redeem(activated).run).toEqual({ ok: false, code: 'challenge_expired' });
      expect(await world.store.findChallenge(created.id)).toEqual(activated);
      expect(await world.rows.count('sessions', 'user_id = ?', [userId])).toBe(0);
    });
  });
}
