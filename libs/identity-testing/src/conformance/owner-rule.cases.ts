import { describe, expect, it } from '@jest/globals';
import type { MembershipChange, MembershipRecord, OrganizationRole } from '@tessera/identity';
import { newTestInvitation, testAuditEvent } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

/**
 * The owner rule of identity-model §6.1 re-checked by the store under the command's locks: an
 * owner demoted after the route checked them (the race of a concurrent demotion) cannot finish an
 * owner-only change — a membership change that makes or unmakes an owner, or creating or revoking
 * an `owner` invitation.
 */
export function ownerRuleCases(world: ConformanceWorld): void {
  /** A fresh organization with one member (a new user) per role, in order. */
  async function organizationWith(roles: OrganizationRole[]) {
    const organizationId = await world.rows.organization({ at: world.tick() });
    const members: { membership: MembershipRecord; userId: string }[] = [];
    for (const role of roles) {
      const userId = await world.rows.user({ at: world.clock.now() });
      const id = await world.rows.membership(organizationId, userId, { role, at: world.clock.now() });
      members.push({ membership: (await world.store.findMembership(id))!, userId });
    }
    return { organizationId, members };
  }

  function mutate(membership: MembershipRecord, change: MembershipChange, actorUserId: string | null) {
    const at = world.tick();
    return world.store.mutateMembership({
      organizationId: membership.organizationId,
      membershipId: membership.id,
      expectedVersion: membership.version,
      change,
      revokeSessions: null,
      actorUserId,
      at,
      audits: [testAuditEvent({ action: 'membership.changed', at, organizationId: membership.organizationId })],
    });
  }

  function invite(organizationId: string, role: OrganizationRole, invitedByUserId: string | null) {
    const at = world.tick();
    const invitation = newTestInvitation({ organizationId, at, role, invitedByUserId });
    const audit = testAuditEvent({ action: 'invitation.created', at, organizationId });
    return world.store.createInvitation({ invitation, at, audit });
  }

  /** Demotes the first owner to admin, as the second owner. */
  async function demoteFirstOwner(owners: { membership: MembershipRecord; userId: string }[]) {
    unwrap(await mutate(owners[0]!.membership, { kind: 'role', role: 'admin' }, owners[1]!.userId));
  }

  describe('owner rule under the command locks', () => {
    it('an owner demoted after the route checked them cannot make another member an owner (not_found, nothing changes)', async () => {
      const { members } = await organizationWith(['owner', 'owner', 'viewer']);
      const [demoted, , viewer] = members;
      await demoteFirstOwner(members);
      expect(await mutate(viewer!.membership, { kind: 'role', role: 'owner' }, demoted!.userId)).toEqual({
        ok: false,
        code: 'not_found',
      });
      expect((await world.store.findMembership(viewer!.membership.id))?.role).toBe('viewer');
    });

    it('an owner demoted after the route checked them can neither demote nor remove another owner', async () => {
      const { members } = await organizationWith(['owner', 'owner', 'owner']);
      const [demoted, , third] = members;
      await demoteFirstOwner(members);
      const refused = { ok: false, code: 'not_found' };
      expect(await mutate(third!.membership, { kind: 'role', role: 'viewer' }, demoted!.userId)).toEqual(refused);
      expect(await mutate(third!.membership, { kind: 'remove' }, demoted!.userId)).toEqual(refused);
      expect(await world.store.findMembership(third!.membership.id)).toEqual(third!.membership);
    });

    it('a removed owner cannot finish an owner-only change either', async () => {
      const { members } = await organizationWith(['owner', 'owner', 'admin']);
      const [removed, remaining, admin] = members;
      unwrap(await mutate(removed!.membership, { kind: 'remove' }, remaining!.userId));
      expect(await mutate(admin!.membership, { kind: 'role', role: 'owner' }, removed!.userId)).toEqual({
        ok: false,
        code: 'not_found',
      });
    });

    it('lets an active owner make owner-only changes, themselves included, and a non-owner make the others', async () => {
      const { members } = await organizationWith(['owner', 'owner', 'admin', 'viewer']);
      const [first, second, admin, viewer] = members;
      const promoted = unwrap(await mutate(viewer!.membership, { kind: 'role', role: 'publisher' }, admin!.userId));
      expect(promoted.membership.role).toBe('publisher');
      const owner = unwrap(await mutate(promoted.membership, { kind: 'role', role: 'owner' }, second!.userId));
      expect(owner.membership.role).toBe('owner');
      const self = unwrap(await mutate(first!.membership, { kind: 'role', role: 'admin' }, first!.userId));
      expect(self.membership.role).toBe('admin');
    });

    it('refuses an owner invitation issued by a user who is no longer an owner; the system and owners may issue one', async () => {
      const { organizationId, members } = await organizationWith(['owner', 'owner']);
      await demoteFirstOwner(members);
      expect(await invite(organizationId, 'owner', members[0]!.userId)).toEqual({ ok: false, code: 'not_found' });
      expect((await invite(organizationId, 'viewer', members[0]!.userId)).ok).toBe(true);
      expect((await invite(organizationId, 'owner', members[1]!.userId)).ok).toBe(true);
      expect((await invite(organizationId, 'owner', null)).ok).toBe(true);
    });

    it('refuses the revocation of an owner invitation by a demoted owner and lets an owner revoke it', async () => {
      const { organizationId, members } = await organizationWith(['owner', 'owner']);
      const invitation = unwrap(await invite(organizationId, 'owner', members[1]!.userId));
      await demoteFirstOwner(members);
      const revoke = (actorUserId: string) => {
        const at = world.tick();
        return world.store.mutateInvitation({
          invitationId: invitation.id,
          organizationId,
          expectedVersion: invitation.version,
          change: { kind: 'revoke' },
          actorUserId,
          at,
          audit: testAuditEvent({ action: 'invitation.revoked', at, organizationId }),
        });
      };
      expect(await revoke(members[0]!.userId)).toEqual({ ok: false, code: 'not_found' });
      expect((await world.store.findInvitation(invitation.id))?.state).toBe('pending');
      expect(unwrap(await revoke(members[1]!.userId)).state).toBe('revoked');
    });
  });
}
