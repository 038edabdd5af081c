import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { SoftwareAuthenticator, testUuidV7 } from '@tessera/identity-testing';
import { sessionCookieOf } from '../../support/identity-app.js';
import { registerPasskey, sessionOf, signIn } from '../../support/passkey-client.js';
import { AdminRecoveryWorld } from './admin-recovery.fixtures.js';
import {
  auditsOf,
  errorCode,
  kernelOf,
  keyedDigest,
  plusMinutes,
  rowsOf,
  SESSION_CREATED_KEYS,
} from './recovery-e2e.support.js';

describe('administrative recovery tickets: redemption (route 20)', () => {
  let world: AdminRecoveryWorld;
  beforeEach(async () => {
    world = await AdminRecoveryWorld.boot();
  });
  afterEach(async () => world?.close());

  const sessionsOfTarget = () => rowsOf(world.identity).count('sessions', 'user_id = ?', [world.targetUserId]);

  it('redeems a delivered ticket exactly once for a 15-minute administrative-recovery session', async () => {
    const { identity, targetUserId } = world;
    const { ticket, token } = await world.deliveredTicket();
    const forged = await world.redeem(`${ticket.id}.${randomBytes(32).toString('base64url')}`);
    expect([forged.status, errorCode(forged)]).toEqual([401, 'invalid_credentials']);
    expect((await world.ticketRow(ticket.id))['state']).toBe('pending');

    identity.clock.advance({ minutes: 2 });
    const redeemed = await world.redeem(token, { deviceLabel: 'Help desk' });
    expect(redeemed.status).toBe(200);
    expect(Object.keys(redeemed.body).sort()).toEqual(SESSION_CREATED_KEYS);
    const at = '2026-07-14T08:17:30Z';
    expect(redeemed.body).toMatchObject({
      userId: targetUserId,
      assurance: 'recovery',
      authenticatedAt: at,
      idleExpiresAt: plusMinutes(at, 15),
      absoluteExpiresAt: plusMinutes(at, 15),
    });
    expect(sessionCookieOf(redeemed.headers)).toBeDefined();
    const recovery = sessionOf(redeemed);
    const [session] = await rowsOf(identity).sql(
      'select assurance, authentication_method, state, label, user_id from tessera_identity.sessions where id = ?',
      [recovery.sessionId],
    );
    expect(session).toEqual({
      assurance: 'recovery',
      authentication_method: 'administrative_recovery',
      state: 'active',
      label: 'Help desk',
      user_id: targetUserId,
    });
    expect((await world.ticketRow(ticket.id))['state']).toBe('consumed');
    expect(await auditsOf(identity, 'recovery.admin_ticket_used')).toEqual([
      expect.objectContaining({
        actor_type: 'user',
        actor_user_id: targetUserId,
        target_type: 'challenge',
        target_id: ticket.id,
        outcome: 'succeeded',
      }),
    ]);

    const again = await world.redeem(token);
    expect([again.status, errorCode(again)]).toEqual([401, 'invalid_credentials']);
    expect(await sessionsOfTarget()).toBe(1);

    const authenticator = new SoftwareAuthenticator();
    const enrolled = await registerPasskey(identity, recovery, authenticator);
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.replacementRecoveryCodes).toHaveLength(10);
    const signedIn = await signIn(identity, authenticator);
    expect([signedIn.status, signedIn.body.userId]).toEqual([200, targetUserId]);
    world.expectNoTokenOverHttp();
  });

  it('mints at most one session under 20 concurrent redemptions of one ticket', async () => {
    const { ticket, token } = await world.deliveredTicket();
    const results = await Promise.all(Array.from({ length: 20 }, () => world.redeem(token)));
    const statuses = results.map((res) => `${res.status} ${errorCode(res) ?? ''}`.trim());
    expect(statuses.filter((s) => s === '200')).toHaveLength(1);
    expect(statuses.filter((s) => s === '401 invalid_credentials')).toHaveLength(19);
    expect(await sessionsOfTarget()).toBe(1);
    expect((await world.ticketRow(ticket.id))['state']).toBe('consumed');
    expect(await auditsOf(world.identity, 'recovery.admin_ticket_used')).toHaveLength(1);
  });

  it('refuses redemption while delivery is still in flight, before the ticket is activated', async () => {
    const { owner, authorizer, sink } = world;
    authorizer.allowed.add(owner.session.userId);
    let early: Response | undefined;
    sink.duringDelivery = async ({ ticketId, token }) => {
      early = await world.redeem(token);
      expect(await world.ticketRow(ticketId)).toMatchObject({ state: 'pending', activated_at: null });
    };
    const issued = await world.issue(owner.session);
    expect(issued.status).toBe(201);
    expect([early?.status, early && errorCode(early)]).toEqual([401, 'invalid_credentials']);
    expect((await world.ticketRow(issued.body.id))['state']).toBe('pending');
    expect((await world.redeem(sink.deliveries[0]!.token)).status).toBe(200);
    world.expectNoTokenOverHttp();
  });

  it('refuses redemption of a ticket the store created but never activated', async () => {
    const { identity, targetUserId } = world;
    const kernel = kernelOf(identity);
    const pepper = kernel.keys.recoveryPepper.current;
    const at = identity.clock.now();
    const ticketId = testUuidV7(at);
    const secret = randomBytes(32);
    const created = await kernel.store.createChallenge({
      challenge: {
        id: ticketId,
        purpose: 'account_recovery',
        challengeDigest: {
          algorithm: 'hmac-sha256',
          encoded: keyedDigest(pepper.key, 'tessera-recovery-ticket-v1', ticketId, secret),
          keyVersion: pepper.version,
        },
        bindingDigest: null,
        payloadDigest: null,
        userBindingDigest: keyedDigest(pepper.key, 'tessera-recovery-ticket-user-v1', ticketId, targetUserId),
        userId: targetUserId,
        organizationId: null,
        expiresAt: new Date(at.getTime() + 15 * 60_000),
      },
      at,
      audits: [],
    });
    if (!created.ok) throw new Error(`createChallenge failed: ${created.code}`);
    const token = `${ticketId}.${secret.toString('base64url')}`;

    const refused = await world.redeem(token);
    expect([refused.status, errorCode(refused)]).toEqual([401, 'invalid_credentials']);
    expect(await world.ticketRow(ticketId)).toMatchObject({ state: 'pending', activated_at: null });
    expect(await sessionsOfTarget()).toBe(0);

    // The same token works once activated: the refusal came from the missing activation alone.
    const activated = await kernel.store.activateAdministrativeRecoveryTicket({
      ticketId,
      expectedVersion: created.value.version,
      at,
      audits: [],
    });
    expect(activated.ok).toBe(true);
    expect((await world.redeem(token)).status).toBe(200);
  });

  it('expires a ticket after 15 minutes: 401, state expired, recovery.admin_ticket_expired denied', async () => {
    const { identity } = world;
    const { ticket, token } = await world.deliveredTicket();
    identity.clock.advance({ minutes: 16 });
    const expired = await world.redeem(token);
    expect([expired.status, errorCode(expired)]).toEqual([401, 'invalid_credentials']);
    expect(await world.ticketRow(ticket.id)).toMatchObject({ state: 'expired', failure_reason: 'ticket_expired' });
    expect(await auditsOf(identity, 'recovery.admin_ticket_expired')).toEqual([
      {
        actor_type: 'anonymous',
        actor_user_id: null,
        action: 'recovery.admin_ticket_expired',
        target_type: 'challenge',
        target_id: ticket.id,
        outcome: 'denied',
        reason_code: 'ticket_expired',
      },
    ]);
    expect(await sessionsOfTarget()).toBe(0);
    const later = await world.redeem(token);
    expect([later.status, errorCode(later)]).toEqual([401, 'invalid_credentials']);
    expect(await auditsOf(identity, 'recovery.admin_ticket_expired')).toHaveLength(1);
  });
});
