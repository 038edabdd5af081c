import { describe, expect, it } from '@jest/globals';
import type { IdentityStore, InvitationRecord } from '@tessera/identity';
import { newTestInvitation, newTestSession, newTestUser, testAuditEvent, testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';

type AcceptInput = Parameters<IdentityStore['createMembership']>[0];

/**
 * Invitation listing, revocation (`mutateInvitation`) and acceptance by an existing account
 * (`createMembership`), with the acceptance half of INVITATION_SINGLE_USE (identity-model §5.4,
 * §9.2, §11.1).
 */
export function invitationAcceptanceCases(world: ConformanceWorld): void {
  async function invite(organizationId: string, over: Partial<Parameters<typeof newTestInvitation>[0]> = {}) {
    const at = world.tick();
    const invitation = newTestInvitation({ organizationId, at, ...over });
    const audit = testAuditEvent({ action: 'invitation.created', at, organizationId });
    return unwrap(await world.store.createInvitation({ invitation, at, audit }));
  }

  function revoke(
    invitation: InvitationRecord,
    over: { organizationId?: string; expectedVersion?: number; actorUserId?: string | null } = {},
  ) {
    const at = world.clock.now();
    const audit = testAuditEvent({ action: 'invitation.revoked', at, organizationId: invitation.organizationId });
    const run = world.store.mutateInvitation({
      invitationId: invitation.id,
      organizationId: over.organizationId ?? invitation.organizationId,
      expectedVersion: over.expectedVersion ?? invitation.version,
      change: { kind: 'revoke' },
      actorUserId: over.actorUserId ?? null,
      at,
      audit,
    });
    return { audit, run };
  }

  function acceptance(invitation: InvitationRecord, userId: string, over: Partial<AcceptInput> = {}): AcceptInput {
    const at = world.clock.now();
    const actor = { type: 'user', userId } as const;
    const membershipId = testUuidV7(at);
    return {
      membership: { id: membershipId, organizationId: invitation.organizationId, userId, role: invitation.role },
      invitation: { invitationId: invitation.id, expectedVersion: invitation.version },
      at,
      audits: [
        testAuditEvent({ action: 'invitation.accepted', at, actor, organizationId: invitation.organizationId }),
        testAuditEvent({
          action: 'membership.created',
          at,
          actor,
          organizationId: invitation.organizationId,
          target: { type: 'membership', id: membershipId },
        }),
      ],
      ...over,
    };
  }

  /** Memberships and acceptance audits the inputs would have written. */
  async function written(inputs: AcceptInput[]): Promise<[number, number]> {
    const ids = inputs.map((input) => input.membership.id);
    const audits = inputs.flatMap((input) => input.audits);
    return [
      await world.rows.count('memberships', `id in (${ids.map(() => '?').join(', ')})`, ids),
      await world.storedAudits(audits),
    ];
  }

  describe('invitation revocation and acceptance', () => {
    it('lists every invitation of an organization in any state by id, and nothing for unknown or malformed ids', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const first = await invite(organizationId);
      const second = await invite(organizationId);
      unwrap(await revoke(second).run);
      await invite(await world.rows.organization());
      const listed = await world.store.listInvitationsForOrganization(organizationId);
      expect(listed.map((i) => [i.id, i.state])).toEqual([
        [first.id, 'pending'],
        [second.id, 'revoked'],
      ]);
      expect(listed[0]).toEqual(first);
      expect(await world.store.listInvitationsForOrganization(testUuidV7())).toEqual([]);
      expect(await world.store.listInvitationsForOrganization('not-a-uuid')).toEqual([]);
    });

    it('revokes a pending invitation once (version + 1, revokedAt, audit) and frees its email for a new invitation', async () => {
      const invitation = await invite(world.organizationId);
      const { audit, run } = revoke(invitation);
      const revoked = unwrap(await run);
      expect(revoked).toEqual({ ...invitation, state: 'revoked', revokedAt: world.clock.now(), version: 1 });
      expect(await world.storedAudits([audit])).toBe(1);
      const again = revoke(revoked);
      expect(await again.run).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.storedAudits([again.audit])).toBe(0);
      expect((await invite(world.organizationId, { email: invitation.email.toUpperCase() })).state).toBe('pending');
    });

    it('classifies a revocation miss (another organization or unknown → not_found, stale version → version_conflict) and still revokes an expired invitation', async () => {
      const invitation = await invite(world.organizationId, { expiresInSeconds: 120 });
      expect(await revoke(invitation, { organizationId: await world.rows.organization() }).run).toEqual({
        ok: false,
        code: 'not_found',
      });
      expect(await revoke({ ...invitation, id: testUuidV7() }).run).toEqual({ ok: false, code: 'not_found' });
      expect(await revoke(invitation, { expectedVersion: 3 }).run).toEqual({ ok: false, code: 'version_conflict' });
      expect(await world.store.findInvitation(invitation.id)).toEqual(invitation);
      world.clock.advance({ seconds: 120 });
      expect(unwrap(await revoke(invitation).run).state).toBe('revoked');
    });

    it(`revokes exactly once under ${world.concurrency} concurrent revocations`, async () => {
      const invitation = await invite(world.organizationId);
      const attempts = Array.from({ length: world.concurrency }, () => revoke(invitation));
      const { winners, codes } = partition(await Promise.all(attempts.map((attempt) => attempt.run)));
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['invalid_transition', 'version_conflict']).toContain(code);
      expect(await world.storedAudits(attempts.map((attempt) => attempt.audit))).toBe(1);
    });

    it('accepts for an existing user whose primary email matches case-insensitively: membership, invitation accepted, audits', async () => {
      const invitation = await invite(world.organizationId, { email: 'Existing.Member@Example.test', role: 'admin' });
      const userId = await world.rows.user({ email: 'existing.member@EXAMPLE.test', at: world.clock.now() });
      const input = acceptance(invitation, userId);
      const result = unwrap(await world.store.createMembership(input));
      expect(result.membership).toMatchObject({
        id: input.membership.id,
        organizationId: world.organizationId,
        userId,
        role: 'admin',
        state: 'active',
        version: 0,
      });
      expect(result.invitation).toEqual({
        ...invitation,
        state: 'accepted',
        acceptedAt: input.at,
        acceptedByUserId: userId,
        version: 1,
      });
      expect(await world.store.findMembershipForUser(world.organizationId, userId)).toEqual(result.membership);
      expect(await written([input])).toEqual([1, 2]);
    });

    it('refuses a wrong email, a revoked, expired or stale invitation, and a role or organization mismatch, writing nothing', async () => {
      const userId = await world.rows.user({ email: 'refused.user@example.test' });
      const mismatch = await invite(world.organizationId, { email: 'someone.else@example.test' });
      const wrongEmail = acceptance(mismatch, userId);
      expect(await world.store.createMembership(wrongEmail)).toEqual({ ok: false, code: 'invalid_transition' });
      const revoked = unwrap(
        await revoke(await invite(world.organizationId, { email: 'refused.user@example.test' })).run,
      );
      const onRevoked = acceptance(revoked, userId);
      expect(await world.store.createMembership(onRevoked)).toEqual({ ok: false, code: 'invalid_transition' });
      // Another organization: an expired invitation stays stored `pending` and holds its email.
      const expiring = await invite(await world.rows.organization(), {
        email: 'refused.user@example.test',
        expiresInSeconds: 60,
      });
      world.clock.advance({ seconds: 60 });
      const late = acceptance(expiring, userId);
      expect(await world.store.createMembership(late)).toEqual({ ok: false, code: 'invalid_transition' });
      const pending = await invite(world.organizationId, { email: 'refused.user@example.test', role: 'viewer' });
      const stale = acceptance(pending, userId, { invitation: { invitationId: pending.id, expectedVersion: 5 } });
      expect(await world.store.createMembership(stale)).toEqual({ ok: false, code: 'version_conflict' });
      const promoted = acceptance(pending, userId);
      const escalated = { ...promoted, membership: { ...promoted.membership, role: 'owner' as const } };
      expect(await world.store.createMembership(escalated)).toEqual({ ok: false, code: 'invalid_transition' });
      const elsewhere = {
        ...promoted,
        membership: { ...promoted.membership, organizationId: await world.rows.organization() },
      };
      expect(await world.store.createMembership(elsewhere)).toEqual({ ok: false, code: 'invalid_transition' });
      const unknown = acceptance({ ...pending, id: testUuidV7() }, userId);
      expect(await world.store.createMembership(unknown)).toEqual({ ok: false, code: 'not_found' });
      expect(await written([wrongEmail, onRevoked, late, stale, escalated, elsewhere, unknown])).toEqual([0, 0]);
      expect(await world.store.findInvitation(pending.id)).toEqual(pending);
      expect(await world.store.findMembershipForUser(world.organizationId, userId)).toBeNull();
    });

    it('refuses a user who already has an active or suspended membership in the organization with unique_constraint, leaving the invitation pending', async () => {
      for (const state of ['active', 'suspended'] as const) {
        const email = `already.${state}@example.test`;
        const userId = await world.rows.user({ email });
        await world.rows.membership(world.organizationId, userId, { state });
        const invitation = await invite(world.organizationId, { email });
        const input = acceptance(invitation, userId);
        expect(await world.store.createMembership(input)).toEqual({ ok: false, code: 'unique_constraint' });
        expect(await written([input])).toEqual([0, 0]);
        expect(await world.store.findInvitation(invitation.id)).toEqual(invitation);
      }
    });

    it('reactivates a removed membership with the invited role (a rejoin): same id, audited membership.created with reason rejoined', async () => {
      const userId = await world.rows.user({ email: 'removed.member@example.test' });
      const membershipId = await world.rows.membership(world.organizationId, userId, {
        state: 'removed',
        role: 'admin',
      });
      const removed = (await world.store.findMembership(membershipId))!;
      const invitation = await invite(world.organizationId, { email: 'Removed.Member@example.test', role: 'viewer' });
      const input = acceptance(invitation, userId);
      const { membership, invitation: accepted } = unwrap(await world.store.createMembership(input));
      expect(membership).toEqual({
        ...removed,
        role: 'viewer',
        state: 'active',
        removedAt: null,
        updatedAt: input.at,
        version: removed.version + 1,
      });
      expect(accepted.state).toBe('accepted');
      expect(await world.rows.count('memberships', 'id = ?', [input.membership.id])).toBe(0);
      const [audit] = await world.rows.sql(
        `select target_type, target_id, reason_code from tessera_identity.audit_events where id = ?`,
        [input.audits[1]!.id],
      );
      expect(audit).toEqual({ target_type: 'membership', target_id: membershipId, reason_code: 'rejoined' });
      const again = await invite(world.organizationId, { email: 'removed.member@example.test' });
      expect(await world.store.createMembership(acceptance(again, userId))).toEqual({
        ok: false,
        code: 'unique_constraint',
      });
    });

    it(`admits one winner when ${world.concurrency} acceptances and an enrollment race for one invitation`, async () => {
      const invitation = await invite(world.organizationId, { email: 'raced.invitee@example.test' });
      const userId = await world.rows.user({ email: 'RACED.invitee@example.test' });
      const inputs = Array.from({ length: world.concurrency }, () => acceptance(invitation, userId));
      const at = world.clock.now();
      const newcomer = newTestUser({ primaryEmail: null });
      const enrollment = world.store.enrollInvitation({
        tokenDigest: invitation.tokenDigest,
        at,
        user: newcomer,
        membershipId: testUuidV7(at),
        session: newTestSession({ userId: newcomer.id, at, method: 'invitation', absoluteSeconds: 900 }),
        requireIssuingUser: false,
        audits: () => [],
      });
      const [enrolled, ...accepted] = await Promise.all([
        enrollment,
        ...inputs.map((i) => world.store.createMembership(i)),
      ]);
      const { winners, codes } = partition(accepted);
      // The existing account holds the email, so the enrollment can never win.
      expect(enrolled!.ok).toBe(false);
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['invalid_transition', 'unique_constraint', 'version_conflict']).toContain(code);
      expect(
        await world.rows.count('memberships', 'organization_id = ? and user_id = ?', [world.organizationId, userId]),
      ).toBe(1);
      expect(await world.rows.count('users', 'id = ?', [newcomer.id])).toBe(0);
      expect(await world.store.findInvitation(invitation.id)).toMatchObject({
        state: 'accepted',
        acceptedByUserId: userId,
      });
    });
  });
}
