import { describe, expect, it } from '@jest/globals';
import type { ScimMutation } from '@tessera/identity';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { SCIM_PAGE, scimAttributes, ScimFixture, scimReceipt } from './scim.fixtures.js';

/**
 * SCIM batches (identity-model §5.10, §9.2 `applyScimBatch`): users created, replaced and deleted
 * with their audits, batches of an inactive organization, idempotent receipts under the operation
 * id's advisory lock, compare-and-set versions, tenant isolation of reads and mutations, and user
 * pages. Groups and their members: `scim-group.cases.ts`.
 */
export function scimBatchCases(world: ConformanceWorld): void {
  const scim = new ScimFixture(world);

  describe('SCIM batches', () => {
    it('creates a user: an identity user without email, the SCIM user at version 1, a viewer membership and its audits', async () => {
      const tenant = await scim.tenant();
      const mutation = scim.createMutation('Ada@Example.com', {
        emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
        name: { ...scimAttributes('x').name, givenName: 'Ada' },
      });
      const created = unwrap(await scim.apply(tenant, mutation));
      expect(created).toEqual({
        replayed: false,
        status: 201,
        resourceType: 'user',
        resourceId: mutation.scimUserId,
        version: 1,
        user: expect.anything(),
        groups: [],
      });
      const user = await world.store.findScimUser(tenant, mutation.scimUserId);
      // The batch hands back the user exactly as stored.
      expect(created.user).toEqual(user);
      expect(user).toMatchObject({ userName: 'Ada@Example.com', userId: mutation.userId, version: 1, active: true });
      expect(user?.emails).toEqual([{ value: 'ada@example.com', type: 'work', primary: true }]);
      expect(user?.name.givenName).toBe('Ada');
      expect(await world.store.findUser(mutation.userId)).toMatchObject({
        primaryEmail: null,
        displayName: 'Ada@Example.com',
        state: 'active',
      });
      expect(await scim.membership(mutation.membershipId)).toEqual({ role: 'viewer', state: 'active' });
      const actions = await world.rows.sql(
        `select action, target_type from tessera_identity.audit_events where organization_id = ? order by occurred_at, action`,
        [tenant.organizationId],
      );
      expect(actions.map((row) => `${String(row['action'])}:${String(row['target_type'])}`).sort()).toEqual([
        'membership.created:membership',
        'scim.mutation_applied:scim_user',
        'user.created:user',
      ]);
    });

    it('creates an inactive user with a removed membership', async () => {
      const tenant = await scim.tenant();
      const { membershipId } = await scim.createUser(tenant, 'inactive@example.com', { active: false });
      expect(await scim.membership(membershipId)).toEqual({ role: 'viewer', state: 'removed' });
    });

    it('replaces a user (version + 1, emails replaced, display name kept in step) and deletes it (the identity user stays)', async () => {
      const tenant = await scim.tenant();
      const { scimUserId, userId, membershipId } = await scim.createUser(tenant, 'grace@example.com', {
        emails: [{ value: 'old@example.com', type: null, primary: false }],
      });
      const replaced = unwrap(
        await scim.apply(tenant, {
          kind: 'replaceUser',
          scimUserId,
          expectedVersion: 1,
          userDisplayName: 'Grace Hopper',
          attributes: scimAttributes('grace@example.com', {
            displayName: 'Grace Hopper',
            emails: [{ value: 'new@example.com', type: 'work', primary: true }],
          }),
        }),
      );
      expect(replaced).toMatchObject({ status: 200, version: 2 });
      const user = await world.store.findScimUser(tenant, scimUserId);
      expect(replaced.user).toEqual(user);
      expect(replaced.groups).toEqual(await world.store.listScimUserGroups(tenant, [scimUserId]));
      expect(user).toMatchObject({ displayName: 'Grace Hopper', version: 2 });
      expect(user?.emails).toEqual([{ value: 'new@example.com', type: 'work', primary: true }]);
      expect((await world.store.findUser(userId))?.displayName).toBe('Grace Hopper');

      // `emailsUnchanged` keeps the email rows only under a version; without one it is ignored. The
      // batch hands back the user's groups with it.
      const groupId = await scim.createGroup(tenant, 'Pioneers', [scimUserId]);
      const kept = scimAttributes('grace@example.com', {
        displayName: 'Grace B. Hopper',
        emails: [{ value: 'new@example.com', type: 'work', primary: true }],
      });
      const renamed = unwrap(
        await scim.apply(tenant, {
          kind: 'replaceUser',
          scimUserId,
          expectedVersion: 2,
          userDisplayName: 'Grace B. Hopper',
          attributes: kept,
          emailsUnchanged: true,
        }),
      );
      expect(renamed.user).toEqual(await world.store.findScimUser(tenant, scimUserId));
      expect(renamed.user?.emails).toEqual(kept.emails);
      expect(renamed.groups).toEqual([{ userId: scimUserId, groupId, display: 'Pioneers' }]);
      unwrap(
        await scim.apply(tenant, {
          kind: 'replaceUser',
          scimUserId,
          expectedVersion: null,
          userDisplayName: 'Grace Hopper',
          attributes: scimAttributes('grace@example.com', {
            displayName: 'Grace Hopper',
            emails: [{ value: 'latest@example.com', type: null, primary: false }],
          }),
          emailsUnchanged: true,
        }),
      );
      expect((await world.store.findScimUser(tenant, scimUserId))?.emails).toEqual([
        { value: 'latest@example.com', type: null, primary: false },
      ]);

      const deleted = unwrap(await scim.apply(tenant, { kind: 'deleteUser', scimUserId, expectedVersion: 4 }));
      expect(deleted).toMatchObject({ status: 204, resourceId: scimUserId, version: null });
      expect(await world.store.findScimUser(tenant, scimUserId)).toBeNull();
      expect((await world.store.queryScimUsers(tenant, SCIM_PAGE)).totalResults).toBe(0);
      expect(await scim.membership(membershipId)).toEqual({ role: 'viewer', state: 'removed' });
      expect((await world.store.findUser(userId))?.state).toBe('active');
      expect(await scim.apply(tenant, { kind: 'deleteUser', scimUserId, expectedVersion: null })).toEqual({
        ok: false,
        code: 'not_found',
      });
    });

    it('refuses a second active user with the same userName in any case (unique_constraint)', async () => {
      const tenant = await scim.tenant();
      await scim.createUser(tenant, 'dup@example.com');
      expect(await scim.apply(tenant, scim.createMutation('DUP@example.com'))).toEqual({
        ok: false,
        code: 'unique_constraint',
      });
    });

    it('refuses every batch of an organization that is no longer active, writing nothing (not_found)', async () => {
      const tenant = await scim.tenant();
      const { scimUserId } = await scim.createUser(tenant, 'before@example.com');
      const groupId = await scim.createGroup(tenant, 'Before', [scimUserId]);
      await world.rows.sql(
        `update tessera_identity.organizations set state = 'deleted', deleted_at = now() where id = ?`,
        [tenant.organizationId],
      );
      const audits = await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId]);
      const mutations: ScimMutation[] = [
        scim.createMutation('after@example.com'),
        {
          kind: 'replaceUser',
          scimUserId,
          expectedVersion: null,
          userDisplayName: 'Renamed',
          attributes: scimAttributes('before@example.com', { displayName: 'Renamed' }),
        },
        { kind: 'changeGroup', groupId, expectedVersion: null, steps: [{ kind: 'remove', memberIds: [scimUserId] }] },
        { kind: 'deleteUser', scimUserId, expectedVersion: null },
      ];
      for (const mutation of mutations)
        expect(await scim.apply(tenant, mutation)).toEqual({ ok: false, code: 'not_found' });
      expect(await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId])).toBe(audits);
      expect(await world.rows.count('scim_users', 'organization_id = ?', [tenant.organizationId])).toBe(1);
      expect(await world.rows.count('scim_group_members', 'group_id = ?', [groupId])).toBe(1);
    });

    it('answers a replayed key as first committed and refuses the key for another request (idempotency_conflict)', async () => {
      const tenant = await scim.tenant();
      const receipt = scimReceipt();
      const first = unwrap(await scim.apply(tenant, scim.createMutation('once@example.com'), { receipt }));
      const again = unwrap(await scim.apply(tenant, scim.createMutation('once@example.com'), { receipt }));
      // A replay answers the first commit's outcome (the written user is not kept with it).
      const { user: written, groups: _groups, ...outcome } = first;
      expect(written?.userName).toBe('once@example.com');
      expect(again).toEqual({ ...outcome, replayed: true });
      expect((await world.store.queryScimUsers(tenant, SCIM_PAGE)).totalResults).toBe(1);
      expect(
        await scim.apply(tenant, scim.createMutation('twice@example.com'), {
          receipt: { ...receipt, requestDigest: scimReceipt().requestDigest },
        }),
      ).toEqual({ ok: false, code: 'idempotency_conflict' });
      const [stored] = await world.rows.sql(
        `select mutation_count, result_status from tessera_identity.scim_batch_operations where operation_id = ?`,
        [receipt.operationId],
      );
      expect(Number(stored?.['result_status'])).toBe(201);
      expect(Number(stored?.['mutation_count'])).toBeGreaterThanOrEqual(3);
    });

    it(`commits exactly one of ${world.concurrency} concurrent applies with the same key, the others replay it`, async () => {
      const tenant = await scim.tenant();
      const receipt = scimReceipt();
      const results = await Promise.all(
        Array.from({ length: world.concurrency }, () =>
          scim.apply(tenant, scim.createMutation('race@example.com'), { receipt }),
        ),
      );
      const { winners, codes } = partition(results);
      expect(codes).toEqual([]);
      expect(winners.filter((result) => !result.replayed)).toHaveLength(1);
      expect(new Set(winners.map((result) => result.resourceId)).size).toBe(1);
      expect((await world.store.queryScimUsers(tenant, SCIM_PAGE)).totalResults).toBe(1);
    });

    it('refuses a stale expected version of a user or a group (version_conflict)', async () => {
      const tenant = await scim.tenant();
      const { scimUserId } = await scim.createUser(tenant, 'cas@example.com');
      const groupId = await scim.createGroup(tenant, 'CAS', []);
      expect(
        await scim.apply(tenant, {
          kind: 'replaceUser',
          scimUserId,
          expectedVersion: 7,
          userDisplayName: 'x',
          attributes: scimAttributes('cas@example.com'),
        }),
      ).toEqual({ ok: false, code: 'version_conflict' });
      expect(await scim.apply(tenant, { kind: 'deleteGroup', groupId, expectedVersion: 2 })).toEqual({
        ok: false,
        code: 'version_conflict',
      });
      expect((await world.store.findScimUser(tenant, scimUserId))?.version).toBe(1);
    });

    it('confines reads and mutations to the tenant: another organization or provider sees null and gets not_found', async () => {
      const tenant = await scim.tenant();
      const { scimUserId } = await scim.createUser(tenant, 'mine@example.com');
      const groupId = await scim.createGroup(tenant, 'Mine', [scimUserId]);
      const otherOrganization = await scim.tenant();
      const otherProvider = { ...tenant, providerName: 'entra', provider: `entra:${tenant.organizationId}` };
      for (const other of [otherOrganization, otherProvider]) {
        expect(await world.store.findScimUser(other, scimUserId)).toBeNull();
        expect(await world.store.findScimGroup(other, groupId)).toBeNull();
        expect((await world.store.queryScimUsers(other, SCIM_PAGE)).totalResults).toBe(0);
        expect((await world.store.queryScimGroups(other, SCIM_PAGE)).totalResults).toBe(0);
        expect(await world.store.listScimGroupMembers(other, [groupId])).toEqual([]);
        expect(await world.store.listScimUserGroups(other, [scimUserId])).toEqual([]);
        expect(await scim.apply(other, { kind: 'deleteUser', scimUserId, expectedVersion: null })).toEqual({
          ok: false,
          code: 'not_found',
        });
        expect(
          await scim.apply(other, {
            kind: 'changeGroup',
            groupId,
            expectedVersion: null,
            steps: [{ kind: 'remove', memberIds: [scimUserId] }],
          }),
        ).toEqual({ ok: false, code: 'not_found' });
        expect(await scim.apply(other, { kind: 'deleteGroup', groupId, expectedVersion: null })).toEqual({
          ok: false,
          code: 'not_found',
        });
      }
      expect(await world.store.listScimGroupMembers(tenant, [groupId])).toHaveLength(1);
    });

    it('filters and pages the tenant users, counting over the same filter, with their groups when asked', async () => {
      const tenant = await scim.tenant();
      const users = [];
      for (const name of ['p1@example.com', 'p2@example.com', 'p3@example.com'])
        users.push(await scim.createUser(tenant, name, { externalId: `ext-${name}` }));
      const byName = await world.store.queryScimUsers(tenant, {
        ...SCIM_PAGE,
        filter: { kind: 'compare', attribute: 'userName', op: 'eq', value: 'P2@EXAMPLE.COM' },
      });
      expect(byName.totalResults).toBe(1);
      expect(byName.resources[0]?.userName).toBe('p2@example.com');
      const second = await world.store.queryScimUsers(tenant, { ...SCIM_PAGE, startIndex: 2, count: 1 });
      expect(second.totalResults).toBe(3);
      expect(second.resources.map((user) => user.userName)).toEqual(['p2@example.com']);
      expect(second.groups).toEqual([]);
      const onlyTotal = await world.store.queryScimUsers(tenant, { ...SCIM_PAGE, count: 0 });
      expect(onlyTotal).toEqual({ totalResults: 3, resources: [], groups: [] });
      const past = await world.store.queryScimUsers(tenant, { ...SCIM_PAGE, startIndex: 4, count: 2 });
      expect(past).toEqual({ totalResults: 3, resources: [], groups: [] });

      const ids = users.map((user) => user.scimUserId);
      await scim.createGroup(tenant, 'Zeta', [ids[0]!, ids[1]!]);
      await scim.createGroup(tenant, 'Alpha', [ids[1]!]);
      const withGroups = await world.store.queryScimUsers(tenant, SCIM_PAGE, true);
      expect(withGroups.resources.map((user) => user.id)).toEqual(ids);
      expect(withGroups.groups).toEqual(await world.store.listScimUserGroups(tenant, ids));
      expect(withGroups.groups.map((group) => `${group.userId === ids[1] ? 'p2' : 'p1'}:${group.display}`)).toEqual([
        'p1:Zeta',
        'p2:Alpha',
        'p2:Zeta',
      ]);
    });
  });
}
