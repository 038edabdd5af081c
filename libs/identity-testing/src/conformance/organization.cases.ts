import { describe, expect, it } from '@jest/globals';
import type { IdentityStore, MembershipChange, MembershipRecord, OrganizationRole } from '@tessera/identity';
import { testAuditEvent, testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';

type CreateInput = Parameters<IdentityStore['createOrganization']>[0];

/**
 * Organization creation and changes, membership changes with their epoch revocation, and
 * LAST_OWNER_PROTECTION (identity-model §6.1, §9.2, §11.1).
 */
export function organizationCases(world: ConformanceWorld): void {
  const slug = () => `org-${testUuidV7().slice(-12)}`;

  function creation(userId: string, over: Partial<CreateInput> = {}): CreateInput {
    const at = world.tick();
    const organizationId = testUuidV7(at);
    const membershipId = testUuidV7(at);
    const actor = { type: 'user', userId } as const;
    return {
      organization: { id: organizationId, name: 'Difference Engines', slug: slug() },
      owner: { id: membershipId, organizationId, userId, role: 'owner' },
      at,
      audits: [
        testAuditEvent({ action: 'organization.created', at, actor, organizationId }),
        testAuditEvent({ action: 'membership.created', at, actor, organizationId }),
      ],
      ...over,
    };
  }

  /** A fresh organization whose members have the given roles (each a new user with two sessions). */
  async function organizationWith(roles: OrganizationRole[]) {
    const organizationId = await world.rows.organization({ at: world.tick() });
    const members: { membership: MembershipRecord; userId: string; sessionIds: string[] }[] = [];
    for (const role of roles) {
      const { userId, sessions } = await world.userWithSessions(2);
      const id = await world.rows.membership(organizationId, userId, { role, at: world.clock.now() });
      members.push({
        membership: (await world.store.findMembership(id))!,
        userId,
        sessionIds: sessions.map((s) => s.id),
      });
    }
    return { organizationId, members };
  }

  function change(
    membership: MembershipRecord,
    what: MembershipChange,
    over: { revoke?: boolean; expectedVersion?: number; organizationId?: string; actorUserId?: string | null } = {},
  ) {
    const at = world.clock.now();
    const audit = testAuditEvent({ action: 'membership.changed', at, organizationId: membership.organizationId });
    return {
      audit,
      run: world.store.mutateMembership({
        organizationId: over.organizationId ?? membership.organizationId,
        membershipId: membership.id,
        expectedVersion: over.expectedVersion ?? membership.version,
        change: what,
        revokeSessions: over.revoke === false ? null : { reason: 'organization_privilege_changed' },
        actorUserId: over.actorUserId ?? null,
        at,
        audits: [audit],
      }),
    };
  }

  const activeSessions = (userId: string) => world.rows.count('sessions', "user_id = ? and state = 'active'", [userId]);

  describe('organizations', () => {
    it('creates the organization with exactly one active owner membership and its audits', async () => {
      const userId = await world.rows.user({ at: world.tick() });
      const input = creation(userId);
      const { organization, membership } = unwrap(await world.store.createOrganization(input));
      expect(organization).toEqual({
        ...input.organization,
        state: 'active',
        version: 0,
        createdAt: input.at,
        updatedAt: input.at,
        deletedAt: null,
      });
      expect(membership).toMatchObject({ ...input.owner, state: 'active', version: 0, removedAt: null });
      expect(await world.store.listMembershipsForOrganization(organization.id)).toEqual([membership]);
      expect(await world.storedAudits(input.audits)).toBe(2);
    });

    it('rejects a taken slug with unique_constraint and leaves nothing behind', async () => {
      const userId = await world.rows.user({ at: world.tick() });
      const first = creation(userId);
      unwrap(await world.store.createOrganization(first));
      const second = creation(userId);
      const taken = { ...second, organization: { ...second.organization, slug: first.organization.slug } };
      expect(await world.store.createOrganization(taken)).toEqual({ ok: false, code: 'unique_constraint' });
      expect(await world.store.findOrganization(second.organization.id)).toBeNull();
      expect(await world.rows.count('memberships', 'id = ?', [second.owner.id])).toBe(0);
      expect(await world.storedAudits(second.audits)).toBe(0);
    });

    it('refuses an unknown or inactive creator and an owner membership that does not match', async () => {
      expect(await world.store.createOrganization(creation(testUuidV7()))).toEqual({ ok: false, code: 'not_found' });
      const suspended = await world.rows.user({ state: 'suspended', at: world.tick() });
      const refused = creation(suspended);
      expect(await world.store.createOrganization(refused)).toEqual({ ok: false, code: 'invalid_transition' });
      const userId = await world.rows.user({ at: world.tick() });
      const input = creation(userId);
      const admin = { ...input, owner: { ...input.owner, role: 'admin' as const } };
      expect(await world.store.createOrganization(admin)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findOrganization(input.organization.id)).toBeNull();
    });

    it('renames under CAS: the version advances by one, a stale version is a retryable version_conflict', async () => {
      const { organizationId } = await organizationWith([]);
      const before = (await world.store.findOrganization(organizationId))!;
      const at = world.tick();
      const audit = testAuditEvent({ action: 'organization.changed', at, organizationId });
      const rename = (expectedVersion: number, name: string) =>
        world.store.mutateOrganization({
          organizationId,
          expectedVersion,
          change: { kind: 'rename', name },
          at,
          audit,
        });
      expect(unwrap(await rename(before.version, 'Renamed'))).toEqual({
        ...before,
        name: 'Renamed',
        version: before.version + 1,
        updatedAt: at,
      });
      expect(await rename(before.version, 'Stale')).toEqual({ ok: false, code: 'version_conflict' });
      expect((await world.store.findOrganization(organizationId))!.name).toBe('Renamed');
      expect(await world.storedAudits([audit])).toBe(1);
    });

    it('soft-deletes an organization once; a deleted or unknown organization cannot change', async () => {
      const { organizationId } = await organizationWith(['owner']);
      const at = world.tick();
      const audit = testAuditEvent({ action: 'organization.deleted', at, organizationId });
      const deleted = unwrap(
        await world.store.mutateOrganization({
          organizationId,
          expectedVersion: 0,
          change: { kind: 'delete' },
          at,
          audit,
        }),
      );
      expect(deleted).toMatchObject({ state: 'deleted', deletedAt: at, version: 1 });
      const again = testAuditEvent({ action: 'organization.changed', at, organizationId });
      const rename = { kind: 'rename', name: 'Back' } as const;
      expect(
        await world.store.mutateOrganization({ organizationId, expectedVersion: 1, change: rename, at, audit: again }),
      ).toEqual({ ok: false, code: 'invalid_transition' });
      expect(
        await world.store.mutateOrganization({
          organizationId: testUuidV7(),
          expectedVersion: 0,
          change: rename,
          at,
          audit: again,
        }),
      ).toEqual({ ok: false, code: 'not_found' });
      expect(await world.storedAudits([audit, again])).toBe(1);
    });

    it('lists every membership of the organization in any state, sorted by id', async () => {
      const { organizationId, members } = await organizationWith(['owner', 'viewer', 'admin']);
      unwrap(await change(members[1]!.membership, { kind: 'remove' }).run);
      const listed = await world.store.listMembershipsForOrganization(organizationId);
      expect(listed.map((m) => m.id)).toEqual(members.map((m) => m.membership.id).sort());
      expect(listed.find((m) => m.id === members[1]!.membership.id)).toMatchObject({ state: 'removed' });
      expect(await world.store.listMembershipsForOrganization('not-a-uuid')).toEqual([]);
    });
  });

  describe('membership changes', () => {
    it("changes a role under CAS, advances the target user's epoch and revokes all of its sessions", async () => {
      const { members } = await organizationWith(['owner', 'viewer']);
      const [, viewer] = members;
      const bystander = members[0]!;
      const { audit, run } = change(viewer!.membership, { kind: 'role', role: 'admin' });
      const result = unwrap(await run);
      expect(result.membership).toMatchObject({ role: 'admin', state: 'active', version: 1 });
      expect(result).toMatchObject({ revokedSessionIds: [...viewer!.sessionIds].sort(), sessionEpoch: 1 });
      expect(await activeSessions(viewer!.userId)).toBe(0);
      expect((await world.store.findSession(viewer!.sessionIds[0]!))!.revokedReason).toBe(
        'organization_privilege_changed',
      );
      expect(await activeSessions(bystander.userId)).toBe(2);
      expect(await world.storedAudits([audit])).toBe(1);
    });

    it('removes a membership; without revokeSessions the sessions and the epoch stay as they were', async () => {
      const { members } = await organizationWith(['owner', 'publisher']);
      const publisher = members[1]!;
      const at = world.clock.now();
      const result = unwrap(await change(publisher.membership, { kind: 'remove' }, { revoke: false }).run);
      expect(result).toEqual({
        membership: { ...publisher.membership, state: 'removed', removedAt: at, updatedAt: at, version: 1 },
        revokedSessionIds: [],
        sessionEpoch: null,
      });
      expect(await activeSessions(publisher.userId)).toBe(2);
      expect((await world.store.findUser(publisher.userId))!.sessionEpoch).toBe(0);
    });

    it('refuses a membership of another organization, a removed one and a stale version, changing nothing', async () => {
      const { members } = await organizationWith(['owner', 'viewer']);
      const viewer = members[1]!.membership;
      const other = await organizationWith(['owner']);
      const foreign = change(viewer, { kind: 'remove' }, { organizationId: other.organizationId });
      expect(await foreign.run).toEqual({ ok: false, code: 'not_found' });
      const stale = change(viewer, { kind: 'role', role: 'admin' }, { expectedVersion: viewer.version + 1 });
      expect(await stale.run).toEqual({ ok: false, code: 'version_conflict' });
      expect(await world.store.findMembership(viewer.id)).toEqual(viewer);
      expect(await world.storedAudits([foreign.audit, stale.audit])).toBe(0);
      unwrap(await change(viewer, { kind: 'remove' }).run);
      const removed = (await world.store.findMembership(viewer.id))!;
      expect(await change(removed, { kind: 'role', role: 'admin' }).run).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
    });
  });

  describe('LAST_OWNER_PROTECTION', () => {
    it('demoting or removing the only owner fails last_owner and leaves the row, epoch and sessions unchanged', async () => {
      const { members } = await organizationWith(['owner', 'admin']);
      const owner = members[0]!;
      for (const what of [{ kind: 'role', role: 'admin' }, { kind: 'remove' }] as const) {
        const { audit, run } = change(owner.membership, what);
        expect(await run).toEqual({ ok: false, code: 'last_owner' });
        expect(await world.storedAudits([audit])).toBe(0);
      }
      expect(await world.store.findMembership(owner.membership.id)).toEqual(owner.membership);
      expect((await world.store.findUser(owner.userId))!.sessionEpoch).toBe(0);
      expect(await activeSessions(owner.userId)).toBe(2);
    });

    it('lets one of two owners go, never both: concurrent demotions leave exactly one active owner', async () => {
      const { organizationId, members } = await organizationWith(['owner', 'owner']);
      const runs = Array.from(
        { length: world.concurrency },
        (_, i) => change(members[i % 2]!.membership, { kind: 'role', role: 'admin' }).run,
      );
      const results = await Promise.all(runs);
      const { winners, indexes } = partition(results);
      expect(winners).toHaveLength(1);
      // Losers on the winner's membership see its new version; the others see one owner left.
      // (A deadlock victim would surface as a version_conflict on the other membership.)
      const parity = indexes[0]! % 2;
      expect(results.map((result) => (result.ok ? 'ok' : result.code))).toEqual(
        results.map((result, i) => (result.ok ? 'ok' : i % 2 === parity ? 'version_conflict' : 'last_owner')),
      );
      const owners = await world.rows.count(
        'memberships',
        "organization_id = ? and role = 'owner' and state = 'active'",
        [organizationId],
      );
      expect(owners).toBe(1);
    });

    it('promoting a second owner first makes demoting the original owner possible', async () => {
      const { members } = await organizationWith(['owner', 'admin']);
      const [owner, admin] = members as [(typeof members)[0], (typeof members)[0]];
      unwrap(await change(admin.membership, { kind: 'role', role: 'owner' }).run);
      const demoted = unwrap(await change(owner.membership, { kind: 'role', role: 'viewer' }).run);
      expect(demoted.membership).toMatchObject({ role: 'viewer', version: 1 });
    });
  });
}
