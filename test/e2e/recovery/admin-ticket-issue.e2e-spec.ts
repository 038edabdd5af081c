import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { sessionOf, stepUp } from '../../support/passkey-client.js';
import { AdminRecoveryWorld } from './admin-recovery.fixtures.js';
import { auditsOf, errorCode, plusMinutes, rowsOf } from './recovery-e2e.support.js';

describe('administrative recovery tickets: issue and cancel (routes 18–19)', () => {
  let world: AdminRecoveryWorld;
  beforeEach(async () => {
    world = await AdminRecoveryWorld.boot();
  });
  afterEach(async () => world?.close());

  it('issues a ticket only to the platform authorizer’s admin with a recent passkey; organization ownership never authorizes', async () => {
    const { identity, owner, authorizer, sink, targetUserId } = world;
    const denied = await world.issue(owner.session);
    expect([denied.status, errorCode(denied)]).toEqual([404, 'not_found']);
    expect(authorizer.calls).toEqual([{ actorUserId: owner.session.userId, targetUserId }]);
    expect(sink.deliveries).toEqual([]);
    expect(await rowsOf(identity).count('challenges', "purpose = 'account_recovery'")).toBe(0);
    expect(await auditsOf(identity, 'recovery.admin_ticket_created')).toEqual([]);

    authorizer.allowed.add(owner.session.userId);
    identity.clock.advance({ minutes: 6 });
    const stale = await world.issue(owner.session);
    expect([stale.status, errorCode(stale)]).toEqual([403, 'step_up_required']);
    expect(await rowsOf(identity).count('challenges', "purpose = 'account_recovery'")).toBe(0);

    const recent = sessionOf(await stepUp(identity, owner.session, owner.authenticator));
    for (const [userId, status, code] of [
      ['01900000-0000-7000-8000-000000000000', 404, 'not_found'],
      ['not-a-uuid', 400, 'request_invalid'],
    ] as const) {
      const res = await world.issue(recent, userId);
      expect([res.status, errorCode(res)]).toEqual([status, code]);
    }
    const now = '2026-07-14T08:21:30Z';
    const issued = await world.issue(recent);
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      userId: targetUserId,
      state: 'pending',
      createdAt: now,
      expiresAt: plusMinutes(now, 15),
    });
    const ticketId = issued.body.id as string;
    expect(sink.deliveries).toHaveLength(1);
    const delivery = sink.deliveries[0]!;
    expect(delivery).toEqual({
      ticketId,
      userId: targetUserId,
      token: expect.stringMatching(new RegExp(`^${ticketId}\\.[A-Za-z0-9_-]{43}$`)),
      expiresAt: new Date(plusMinutes(now, 15)),
    });
    const row = await world.ticketRow(ticketId);
    expect(row).toMatchObject({
      purpose: 'account_recovery',
      state: 'pending',
      user_id: targetUserId,
      failure_reason: null,
      challenge_digest_algorithm: 'hmac-sha256',
    });
    expect(new Date(row['activated_at'] as Date).toISOString()).toBe(new Date(now).toISOString());
    expect(row['dump']).not.toContain(delivery.token.split('.')[1]);
    const actor = {
      actor_type: 'user',
      actor_user_id: owner.session.userId,
      target_type: 'challenge',
      target_id: ticketId,
    };
    expect(await auditsOf(identity, 'recovery.admin_ticket_created')).toEqual([
      expect.objectContaining({ ...actor, outcome: 'succeeded' }),
    ]);
    expect(await auditsOf(identity, 'recovery.admin_ticket_delivered')).toEqual([
      expect.objectContaining({ ...actor, outcome: 'succeeded' }),
    ]);
    world.expectNoTokenOverHttp();
  });

  it.each(['throw', 'reject'] as const)(
    'answers 503 and cancels the ticket when delivery fails (sink %ss), auditing delivered(failed) and cancelled',
    async (mode) => {
      const { identity, owner, authorizer, sink, targetUserId } = world;
      authorizer.allowed.add(owner.session.userId);
      sink.mode = mode;
      const failed = await world.issue(owner.session);
      expect([failed.status, errorCode(failed)]).toEqual([503, 'service_unavailable']);
      expect(sink.deliveries).toHaveLength(1);
      const { ticketId, token } = sink.deliveries[0]!;
      expect(await world.ticketRow(ticketId)).toMatchObject({
        state: 'failed',
        failure_reason: 'delivery_failed',
        activated_at: null,
      });
      const actor = {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        target_type: 'challenge',
        target_id: ticketId,
      };
      expect(await auditsOf(identity, 'recovery.admin_ticket_created')).toEqual([
        expect.objectContaining({ ...actor, outcome: 'succeeded' }),
      ]);
      expect(await auditsOf(identity, 'recovery.admin_ticket_delivered')).toEqual([
        expect.objectContaining({ ...actor, outcome: 'failed', reason_code: 'delivery_failed' }),
      ]);
      expect(await auditsOf(identity, 'recovery.admin_ticket_cancelled')).toEqual([
        expect.objectContaining({ ...actor, reason_code: 'delivery_failed' }),
      ]);

      const refused = await world.redeem(token);
      expect([refused.status, errorCode(refused)]).toEqual([401, 'invalid_credentials']);
      expect(await rowsOf(identity).count('sessions', 'user_id = ?', [targetUserId])).toBe(0);
      expect(await auditsOf(identity, 'recovery.admin_ticket_used')).toEqual([]);
      world.expectNoTokenOverHttp();
    },
  );

  it('lets the authorized admin cancel a ticket with a recent passkey; a cancelled ticket cannot be redeemed', async () => {
    const { identity, owner, authorizer, targetUserId } = world;
    const { ticket, token } = await world.deliveredTicket();
    authorizer.allowed.delete(owner.session.userId);
    const unauthorized = await world.cancel(owner.session, ticket.id);
    expect([unauthorized.status, errorCode(unauthorized)]).toEqual([404, 'not_found']);
    authorizer.allowed.add(owner.session.userId);
    identity.clock.advance({ minutes: 6 });
    const stale = await world.cancel(owner.session, ticket.id);
    expect([stale.status, errorCode(stale)]).toEqual([403, 'step_up_required']);
    expect((await world.ticketRow(ticket.id))['state']).toBe('pending');

    const recent = sessionOf(await stepUp(identity, owner.session, owner.authenticator));
    const cancelled = await world.cancel(recent, ticket.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({
      id: ticket.id,
      userId: targetUserId,
      state: 'failed',
      createdAt: '2026-07-14T08:15:30Z',
      expiresAt: '2026-07-14T08:30:30Z',
    });
    expect(await world.ticketRow(ticket.id)).toMatchObject({
      state: 'failed',
      failure_reason: 'administrator_cancelled',
    });
    expect(await auditsOf(identity, 'recovery.admin_ticket_cancelled')).toEqual([
      expect.objectContaining({
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        target_type: 'challenge',
        target_id: ticket.id,
        reason_code: 'administrator_cancelled',
      }),
    ]);

    const refused = await world.redeem(token);
    expect([refused.status, errorCode(refused)]).toEqual([401, 'invalid_credentials']);
    for (const [id, status, code] of [
      [ticket.id, 404, 'not_found'],
      ['01900000-0000-7000-8000-000000000000', 404, 'not_found'],
      ['not-a-uuid', 400, 'request_invalid'],
    ] as const) {
      const res = await world.cancel(recent, id);
      expect([res.status, errorCode(res)]).toEqual([status, code]);
    }
    world.expectNoTokenOverHttp();
  });

  it('audits every step of a ticket’s life and never shows its token over HTTP', async () => {
    const { ticket, token } = await world.deliveredTicket();
    expect((await world.redeem(token)).status).toBe(200);
    const trail = await rowsOf(world.identity).sql(
      'select action, outcome from tessera_identity.audit_events where target_id = ? order by occurred_at, id',
      [ticket.id],
    );
    expect(trail.map((e) => `${String(e['action'])}:${String(e['outcome'])}`).sort()).toEqual([
      'recovery.admin_ticket_created:succeeded',
      'recovery.admin_ticket_delivered:succeeded',
      'recovery.admin_ticket_used:succeeded',
    ]);
    world.expectNoTokenOverHttp();
  });
});
