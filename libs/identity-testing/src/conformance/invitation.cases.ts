import { describe, expect, it } from '@jest/globals';
import type { IdentityStore, InvitationRecord, NewInvitation } from '@tessera/identity';
import {
  newTestInvitation,
  newTestSession,
  newTestUser,
  testAuditEvent,
  testDigest,
  testUuidV7,
} from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';

type EnrollInput = Parameters<IdentityStore['enrollInvitation']>[0];

/** INVITATION_SINGLE_USE and invitation creation (identity-model §5.4, §11.1). */
export function invitationCases(world: ConformanceWorld): void {
  async function invite(over: Partial<Parameters<typeof newTestInvitation>[0]> = {}): Promise<InvitationRecord> {
    const invitation = newTestInvitation({ organizationId: world.organizationId, at: world.tick(), ...over });
    return unwrap(await create(invitation));
  }

  function create(invitation: NewInvitation) {
    const at = world.clock.now();
    const audit = testAuditEvent({ action: 'invitation.created', at, organizationId: invitation.organizationId });
    return world.store.createInvitation({ invitation, at, audit });
  }

  function enrollment(invitation: InvitationRecord, over: Partial<EnrollInput> = {}): EnrollInput {
    const at = world.clock.now();
    const user = newTestUser({ primaryEmail: invitation.email });
    return {
      tokenDigest: invitation.tokenDigest,
      at,
      user,
      membershipId: testUuidV7(at),
      session: newTestSession({ userId: user.id, at, method: 'invitation', idleSeconds: 900, absoluteSeconds: 900 }),
      requireIssuingUser: false,
      audits: (accepted) => [
        testAuditEvent({
          action: 'invitation.accepted',
          at,
          actor: { type: 'user', userId: user.id },
          organizationId: accepted.organizationId,
          target: { type: 'invitation', id: accepted.id },
        }),
      ],
      ...over,
    };
  }

  /** Rows an enrollment of `input` would have written. */
  async function written(inputs: EnrollInput[]): Promise<number[]> {
    const userIds = inputs.map((input) => input.user.id);
    const list = userIds.map(() => '?').join(', ');
    return [
      await world.rows.count('users', `id in (${list})`, userIds),
      await world.rows.count('memberships', `user_id in (${list})`, userIds),
      await world.rows.count('sessions', `user_id in (${list})`, userIds),
    ];
  }

  describe('INVITATION_SINGLE_USE', () => {
    it('creates a pending invitation; a second pending one for the same organization and email in any case, or the same token digest, is a unique_constraint', async () => {
      const invitation = await invite({ email: 'Pat.Doe@Example.test' });
      expect(invitation).toMatchObject({ state: 'pending', version: 0, acceptedAt: null, acceptedByUserId: null });
      expect(await world.store.findInvitation(invitation.id)).toEqual(invitation);
      expect(await world.store.findInvitationByTokenDigest(invitation.tokenDigest)).toEqual(invitation);
      const sameEmail = newTestInvitation({
        organizationId: world.organizationId,
        at: world.tick(),
        email: 'pat.doe@example.TEST',
      });
      expect(await create(sameEmail)).toEqual({ ok: false, code: 'unique_constraint' });
      const sameDigest = {
        ...newTestInvitation({ organizationId: world.organizationId, at: world.tick() }),
        tokenDigest: invitation.tokenDigest,
      };
      expect(await create(sameDigest)).toEqual({ ok: false, code: 'unique_constraint' });
      expect(await world.rows.count('invitations', 'id in (?, ?)', [sameEmail.id, sameDigest.id])).toBe(0);
    });

    it('enrolls a new user atomically: the invitation email and role, a restricted session at the user epoch, the invitation accepted, audits from the accepted invitation', async () => {
      const invitation = await invite({ role: 'admin' });
      const input = enrollment(invitation, { user: newTestUser({ primaryEmail: 'ignored@example.test' }) });
      input.session = newTestSession({
        userId: input.user.id,
        at: input.at,
        method: 'invitation',
        absoluteSeconds: 900,
      });
      let audited: InvitationRecord | undefined;
      const audits = input.audits;
      const result = unwrap(
        await world.store.enrollInvitation({
          ...input,
          audits: (accepted) => ((audited = accepted), audits(accepted)),
        }),
      );
      expect(result.user).toMatchObject({
        id: input.user.id,
        primaryEmail: invitation.email,
        state: 'active',
        sessionEpoch: 0,
      });
      expect(result.membership).toMatchObject({
        id: input.membershipId,
        organizationId: invitation.organizationId,
        userId: input.user.id,
        role: 'admin',
        state: 'active',
      });
      expect(result.session).toMatchObject({
        id: input.session.id,
        userId: input.user.id,
        state: 'active',
        authenticationMethod: 'invitation',
        assurance: 'recovery',
        userSessionEpoch: 0,
      });
      expect(result.invitation).toEqual({
        ...invitation,
        state: 'accepted',
        acceptedAt: input.at,
        acceptedByUserId: input.user.id,
        version: 1,
      });
      expect(audited).toEqual(result.invitation);
      expect(await world.store.findInvitation(invitation.id)).toEqual(result.invitation);
      expect(await world.store.findInvitationAcceptedByUser(input.user.id)).toEqual(result.invitation);
      expect(await world.store.findUserByEmail(invitation.email.toUpperCase())).toEqual(result.user);
      expect(
        await world.rows.count('audit_events', "action = 'invitation.accepted' and target_id = ?", [invitation.id]),
      ).toBe(1);
    });

    it(`admits exactly one account under ${world.concurrency} concurrent enrollments of one invitation, leaving no partial user, membership or session`, async () => {
      const invitation = await invite();
      const inputs = Array.from({ length: world.concurrency }, () => enrollment(invitation));
      const results = await Promise.all(inputs.map((input) => world.store.enrollInvitation(input)));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      for (const code of codes)
        expect(['invalid_transition', 'already_exists', 'unique_constraint', 'version_conflict']).toContain(code);
      expect(await written(inputs)).toEqual([1, 1, 1]);
      expect(await world.rows.count('users', 'lower(primary_email) = lower(?)', [invitation.email])).toBe(1);
      expect(await world.store.findInvitation(invitation.id)).toMatchObject({
        state: 'accepted',
        acceptedByUserId: winners[0]!.user.id,
      });
      expect(
        await world.rows.count('audit_events', "action = 'invitation.accepted' and target_id = ?", [invitation.id]),
      ).toBe(1);
    });

    it('refuses an unknown, used, expired or issuer-less (admin_only) invitation and an email already in use, writing nothing', async () => {
      const unknown = enrollment({ ...(await invite()), tokenDigest: testDigest() });
      expect(await world.store.enrollInvitation(unknown)).toEqual({ ok: false, code: 'not_found' });

      const used = await invite();
      unwrap(await world.store.enrollInvitation(enrollment(used)));
      const reuse = enrollment(used);
      expect(await world.store.enrollInvitation(reuse)).toEqual({ ok: false, code: 'invalid_transition' });

      const expiring = await invite({ expiresInSeconds: 60 });
      world.clock.advance({ seconds: 60 });
      const late = enrollment(expiring);
      expect(await world.store.enrollInvitation(late)).toEqual({ ok: false, code: 'invalid_transition' });

      const issuerless = enrollment(await invite({ invitedByUserId: null }), { requireIssuingUser: true });
      expect(await world.store.enrollInvitation(issuerless)).toEqual({ ok: false, code: 'invalid_transition' });

      const taken = await world.rows.user({ email: 'Taken.User@example.test' });
      const duplicate = enrollment(await invite({ email: 'taken.user@EXAMPLE.test' }));
      expect(await world.store.enrollInvitation(duplicate)).toEqual({ ok: false, code: 'already_exists' });
      expect((await world.store.findUserByEmail('taken.user@example.test'))!.id).toBe(taken);

      expect(await written([unknown, reuse, late, issuerless, duplicate])).toEqual([0, 0, 0]);
      for (const input of [late, issuerless, duplicate]) {
        expect(await world.store.findInvitationByTokenDigest(input.tokenDigest)).toMatchObject({
          state: 'pending',
          version: 0,
        });
      }
    });

    it('rolls every write back when an audit event of the enrollment cannot be stored', async () => {
      const invitation = await invite();
      const input = enrollment(invitation, {
        audits: () => [testAuditEvent({ action: 'Not A Valid Action', at: world.clock.now() })],
      });
      expect(await world.store.enrollInvitation(input)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await written([input])).toEqual([0, 0, 0]);
      expect(await world.store.findInvitation(invitation.id)).toEqual(invitation);
      const admitted = unwrap(await world.store.enrollInvitation(enrollment(invitation)));
      expect(admitted.invitation.state).toBe('accepted');
    });
  });
}
