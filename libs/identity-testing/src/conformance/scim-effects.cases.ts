import { describe, expect, it } from '@jest/globals';
import type { ScimGroupRoleRule } from '@tessera/identity';
import { newTestSession, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';
import { DeviceFixture } from './device.fixtures.js';
import { seedFederation } from './federation-standing.cases.js';
import { ScimFixture } from './scim.fixtures.js';

const RULES: ScimGroupRoleRule[] = [
  { match: { displayName: 'engineering admins' }, role: 'admin' },
  { match: { externalId: 'okta-publishers' }, role: 'publisher' },
];

/**
 * SCIM provisioning effects on the tenant (identity-model §5.10): deprovisioning removes only the
 * tenant membership and revokes the tenant's federated sessions and device token families (never
 * the epoch, passkey sessions or other tenants), reactivation, group-to-role recompute, and the
 * last-owner rule on the batch's final state.
 */
export function scimEffectCases(world: ConformanceWorld): void {
  const scim = new ScimFixture(world);
  const device = new DeviceFixture(world);

  /** An active federated session of `userId` pinned to `organizationId`. */
  async function federatedSession(organizationId: string, userId: string): Promise<string> {
    const at = world.clock.now();
    const federation = await seedFederation(world.rows, organizationId, userId, at);
    const session = {
      ...newTestSession({ userId, at }),
      assurance: 'session' as const,
      authenticationMethod: 'oidc' as const,
      federation,
    };
    await world.rows.session(session);
    return session.id;
  }

  async function sessionState(id: string): Promise<string | undefined> {
    return (await world.store.findSession(id))?.state;
  }

  describe('SCIM provisioning effects', () => {
    it('deprovisioning removes only the tenant membership and revokes the tenant federated session and device family', async () => {
      const claimed = await device.claimed('publisher');
      const { userId, sessionId: passkeySessionId, membershipId } = claimed.approver;
      const epoch = (await world.store.findUser(userId))!.sessionEpoch;
      const tenantSession = await federatedSession(world.organizationId, userId);
      const elsewhere = await world.rows.organization({ at: world.clock.now() });
      const elsewhereMembership = await world.rows.membership(elsewhere, userId, { role: 'admin' });
      const elsewhereSession = await federatedSession(elsewhere, userId);
      const tenant = await scim.tenant(world.organizationId);
      const scimUserId = await scim.link(tenant, userId, `leaver-${userId}@example.com`);

      expect(unwrap(await scim.setActive(tenant, scimUserId, false))).toMatchObject({ status: 200, version: 2 });
      expect(await scim.membership(membershipId)).toMatchObject({ state: 'removed' });
      expect(await sessionState(tenantSession)).toBe('revoked');
      expect((await world.store.findDeviceTokenFamily(claimed.family.id))?.state).toBe('revoked');
      expect(await device.tokenStates(claimed.family.id)).toEqual({ access: { revoked: 1 }, refresh: { revoked: 1 } });
      expect(await sessionState(passkeySessionId)).toBe('active');
      expect(await sessionState(elsewhereSession)).toBe('active');
      expect(await scim.membership(elsewhereMembership)).toEqual({ role: 'admin', state: 'active' });
      expect(await world.store.findUser(userId)).toMatchObject({ state: 'active', sessionEpoch: epoch });
      const revocations = await world.rows.count(
        'audit_events',
        `organization_id = ? and ((action = 'session.revoked' and target_id = ?) or (action = 'device_token.revoked' and target_id = ?) or (action = 'membership.changed' and target_id = ?))`,
        [world.organizationId, tenantSession, claimed.grant.id, membershipId],
      );
      expect(revocations).toBe(3);

      // Reactivation: the membership comes back with the role of the user's groups (none: viewer).
      expect(unwrap(await scim.setActive(tenant, scimUserId, true))).toMatchObject({ version: 3 });
      expect(await scim.membership(membershipId)).toEqual({ role: 'viewer', state: 'active' });
    });

    it('deleting a user removes the membership the same way', async () => {
      const tenant = await scim.tenant();
      const { scimUserId, userId, membershipId } = await scim.createUser(tenant, 'gone@example.com');
      const session = await federatedSession(tenant.organizationId, userId);
      unwrap(await scim.apply(tenant, { kind: 'deleteUser', scimUserId, expectedVersion: null }));
      expect(await scim.membership(membershipId)).toMatchObject({ state: 'removed' });
      expect(await sessionState(session)).toBe('revoked');
    });

    it('recomputes roles from the groups: a group mapped to admin grants admin, leaving it gives viewer again', async () => {
      const tenant = await scim.tenant();
      const { scimUserId, userId, membershipId } = await scim.createUser(tenant, 'eng@example.com');
      const session = await federatedSession(tenant.organizationId, userId);
      const admins = await scim.createGroup(tenant, 'Engineering Admins', [], { groupRoles: RULES });
      const change = (kind: 'add' | 'remove', groupId: string) =>
        scim.apply(
          tenant,
          { kind: 'changeGroup', groupId, expectedVersion: null, steps: [{ kind, memberIds: [scimUserId] }] },
          { groupRoles: RULES },
        );
      unwrap(await change('add', admins));
      expect(await scim.membership(membershipId)).toEqual({ role: 'admin', state: 'active' });
      expect(await sessionState(session)).toBe('revoked');

      const publishers = await scim.createGroup(tenant, 'Publishing', [scimUserId], {
        externalId: 'okta-publishers',
        groupRoles: RULES,
      });
      expect((await scim.membership(membershipId))?.role).toBe('admin');
      unwrap(await change('remove', admins));
      expect((await scim.membership(membershipId))?.role).toBe('publisher');
      unwrap(await change('remove', publishers));
      expect(await scim.membership(membershipId)).toEqual({ role: 'viewer', state: 'active' });
    });

    it('recomputes every member of a renamed group in one batch', async () => {
      const tenant = await scim.tenant();
      const members = [];
      for (let i = 0; i < 5; i++) members.push(await scim.createUser(tenant, `member-${i}@example.com`));
      const groupId = await scim.createGroup(
        tenant,
        'Staff',
        members.map((member) => member.scimUserId),
        { groupRoles: RULES },
      );
      unwrap(
        await scim.apply(
          tenant,
          {
            kind: 'changeGroup',
            groupId,
            expectedVersion: 1,
            steps: [{ kind: 'rename', displayName: 'Engineering Admins' }],
          },
          { groupRoles: RULES },
        ),
      );
      for (const member of members) expect((await scim.membership(member.membershipId))?.role).toBe('admin');
      unwrap(await scim.apply(tenant, { kind: 'deleteGroup', groupId, expectedVersion: 2 }, { groupRoles: RULES }));
      for (const member of members) expect((await scim.membership(member.membershipId))?.role).toBe('viewer');
    });

    it('adds 1,000 members to an admin-mapped group in one batch, and removes them all in another', async () => {
      const tenant = await scim.tenant();
      const at = world.clock.now();
      const ids = (n: number) => Array.from({ length: n }, () => testUuidV7(at));
      const [users, memberships, scimUsers] = [ids(1000), ids(1000), ids(1000)];
      const list = (values: string[]) => `{${values.join(',')}}`;
      await world.rows.sql(
        `insert into tessera_identity.users (id, primary_email, display_name, state, session_epoch, created_at, updated_at, version)
         select u, null, 'Bulk', 'active', 0, ?, ?, 0 from unnest(?::uuid[]) as u`,
        [at, at, list(users)],
      );
      await world.rows.sql(
        `insert into tessera_identity.memberships (id, organization_id, user_id, role, state, created_at, updated_at, removed_at, version)
         select m, ?, u, 'viewer', 'active', ?, ?, null, 0 from unnest(?::uuid[], ?::uuid[]) as t(m, u)`,
        [tenant.organizationId, at, at, list(memberships), list(users)],
      );
      await world.rows.sql(
        `insert into tessera_identity.scim_users (id, organization_id, provider, user_id, user_name, active, state, created_at, updated_at, version)
         select s, ?, ?, u, 'bulk-' || s::text, true, 'active', ?, ?, 1 from unnest(?::uuid[], ?::uuid[]) as t(s, u)`,
        [tenant.organizationId, tenant.provider, at, at, list(scimUsers), list(users)],
      );
      const groupId = await scim.createGroup(tenant, 'Engineering Admins', [], { groupRoles: RULES });
      const roles = async () =>
        Object.fromEntries(
          (
            await world.rows.sql(
              `select role, count(*)::int as n from tessera_identity.memberships where organization_id = ? group by role`,
              [tenant.organizationId],
            )
          ).map((row) => [String(row['role']), Number(row['n'])]),
        );
      const change = (kind: 'add' | 'remove') =>
        scim.apply(
          tenant,
          { kind: 'changeGroup', groupId, expectedVersion: null, steps: [{ kind, memberIds: scimUsers }] },
          { groupRoles: RULES },
        );
      expect(unwrap(await change('add'))).toMatchObject({ version: 2 });
      expect(await roles()).toEqual({ admin: 1000 });
      expect(await world.store.listScimGroupMembers(tenant, [groupId])).toHaveLength(1000);
      expect(unwrap(await change('remove'))).toMatchObject({ version: 3 });
      expect(await roles()).toEqual({ viewer: 1000 });
    });

    it('never deprovisions the last owner (last_owner, nothing written), and owners keep owner', async () => {
      const tenant = await scim.tenant();
      const ownerId = await world.rows.user({ at: world.clock.now() });
      const ownerMembership = await world.rows.membership(tenant.organizationId, ownerId, { role: 'owner' });
      const scimUserId = await scim.link(tenant, ownerId, 'owner@example.com');
      const audits = await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId]);

      expect(await scim.setActive(tenant, scimUserId, false)).toEqual({ ok: false, code: 'last_owner' });
      expect(await scim.membership(ownerMembership)).toEqual({ role: 'owner', state: 'active' });
      expect((await world.store.findScimUser(tenant, scimUserId))?.active).toBe(true);
      expect(await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId])).toBe(audits);

      await scim.createGroup(tenant, 'Engineering Admins', [scimUserId], { groupRoles: RULES });
      expect(await scim.membership(ownerMembership)).toEqual({ role: 'owner', state: 'active' });

      const second = await world.rows.user({ at: world.clock.now() });
      await world.rows.membership(tenant.organizationId, second, { role: 'owner' });
      unwrap(await scim.setActive(tenant, scimUserId, false));
      expect(await scim.membership(ownerMembership)).toEqual({ role: 'owner', state: 'removed' });
    });
  });
}
