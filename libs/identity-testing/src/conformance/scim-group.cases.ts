import { describe, expect, it } from '@jest/globals';
import type { ScimMutation } from '@tessera/identity';
import { testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';
import { SCIM_PAGE, ScimFixture } from './scim.fixtures.js';

/**
 * SCIM groups (identity-model §5.10, §9.2 `applyScimBatch`): a group's life with its members,
 * member deltas without a version applied side by side (the group row locked only for the version
 * bump), the 10,000-member cap under concurrency, and members that are no active user of the tenant.
 */
export function scimGroupCases(world: ConformanceWorld): void {
  const scim = new ScimFixture(world);

  describe('SCIM groups', () => {
    it('creates, changes and deletes a group with its members', async () => {
      const tenant = await scim.tenant();
      const a = await scim.createUser(tenant, 'a@example.com');
      const b = await scim.createUser(tenant, 'b@example.com');
      const groupId = await scim.createGroup(tenant, 'Editors', [a.scimUserId]);
      expect(await world.store.findScimGroup(tenant, groupId)).toMatchObject({ displayName: 'Editors', version: 1 });
      const changed = unwrap(
        await scim.apply(tenant, {
          kind: 'changeGroup',
          groupId,
          expectedVersion: 1,
          steps: [
            { kind: 'rename', displayName: 'Writers' },
            { kind: 'add', memberIds: [a.scimUserId, b.scimUserId] },
            { kind: 'remove', memberIds: [a.scimUserId, testUuidV7()] },
          ],
        }),
      );
      expect(changed).toMatchObject({ status: 200, resourceType: 'group', version: 2 });
      expect(await world.store.listScimGroupMembers(tenant, [groupId])).toEqual([
        { groupId, userId: b.scimUserId, display: 'b@example.com' },
      ]);
      expect(await world.store.listScimUserGroups(tenant, [b.scimUserId])).toEqual([
        { userId: b.scimUserId, groupId, display: 'Writers' },
      ]);
      expect((await world.store.queryScimGroups(tenant, SCIM_PAGE)).totalResults).toBe(1);
      expect(unwrap(await scim.apply(tenant, { kind: 'deleteGroup', groupId, expectedVersion: 2 }))).toMatchObject({
        status: 204,
        version: null,
      });
      expect(await world.store.findScimGroup(tenant, groupId)).toBeNull();
      expect(await world.store.listScimUserGroups(tenant, [b.scimUserId])).toEqual([]);
    });

    it('applies member deltas without a version side by side: the last step naming a member decides, no-ops keep the version', async () => {
      const tenant = await scim.tenant();
      const users = await Promise.all(
        Array.from({ length: world.concurrency }, (_, i) => scim.createUser(tenant, `delta${i}@example.com`)),
      );
      const groupId = await scim.createGroup(tenant, 'Deltas', []);
      const results = await Promise.all(
        users.map((user) =>
          scim.apply(tenant, {
            kind: 'changeGroup',
            groupId,
            expectedVersion: null,
            steps: [{ kind: 'add', memberIds: [user.scimUserId] }],
          }),
        ),
      );
      expect(results.every((result) => result.ok)).toBe(true);
      expect(await world.store.findScimGroup(tenant, groupId)).toMatchObject({ version: 1 + users.length });
      expect((await world.store.listScimGroupMembers(tenant, [groupId])).map((m) => m.userId).sort()).toEqual(
        users.map((user) => user.scimUserId).sort(),
      );

      const [first, second] = users;
      const delta = (steps: Extract<ScimMutation, { kind: 'changeGroup' }>['steps']) =>
        scim.apply(tenant, { kind: 'changeGroup', groupId, expectedVersion: null, steps });
      // Added then removed in one PATCH: absent; an add of a member and a removal of a stranger: no-op.
      const version = 1 + users.length;
      expect(
        unwrap(
          await delta([
            { kind: 'remove', memberIds: [first!.scimUserId] },
            { kind: 'add', memberIds: [first!.scimUserId] },
            { kind: 'remove', memberIds: [first!.scimUserId] },
          ]),
        ),
      ).toMatchObject({ status: 200, version: version + 1 });
      expect(
        unwrap(
          await delta([
            { kind: 'add', memberIds: [second!.scimUserId] },
            { kind: 'remove', memberIds: [testUuidV7(), 'not-a-uuid'] },
          ]),
        ),
      ).toMatchObject({ status: 200, version: version + 1 });
      expect(await world.store.findScimGroup(tenant, groupId)).toMatchObject({ version: version + 1 });
      expect((await world.store.listScimGroupMembers(tenant, [groupId])).map((m) => m.userId)).not.toContain(
        first!.scimUserId,
      );

      // An unknown or foreign member, or a missing group: refused, nothing written.
      const other = await scim.tenant();
      const foreign = await scim.createUser(other, 'foreign-delta@example.com');
      for (const memberIds of [[testUuidV7()], [foreign.scimUserId], ['not-a-uuid']])
        expect(await delta([{ kind: 'add', memberIds: [first!.scimUserId, ...memberIds] }])).toEqual({
          ok: false,
          code: 'invalid_transition',
        });
      expect(
        await scim.apply(tenant, {
          kind: 'changeGroup',
          groupId: testUuidV7(),
          expectedVersion: null,
          steps: [{ kind: 'add', memberIds: [first!.scimUserId] }],
        }),
      ).toEqual({ ok: false, code: 'not_found' });
      expect(await world.store.findScimGroup(tenant, groupId)).toMatchObject({ version: version + 1 });
      expect((await world.store.listScimGroupMembers(tenant, [groupId])).map((m) => m.userId)).not.toContain(
        first!.scimUserId,
      );
    });

    it('holds a group at 10,000 members under concurrent deltas (one of two last additions commits)', async () => {
      const tenant = await scim.tenant();
      const groupId = await scim.createGroup(tenant, 'Everyone', []);
      const at = world.tick();
      // 9,999 members seeded in SQL (users, SCIM users, member rows).
      const seed = `from generate_series(1, 9999) as g(n)`;
      const id = (kind: string) => `md5(? || '${kind}' || n)::uuid`;
      await world.rows.sql(
        `insert into tessera_identity.users (id, primary_email, display_name, state, created_at, updated_at)
         select ${id('user')}, null, 'Seeded ' || n, 'active', ?, ? ${seed}`,
        [groupId, at, at],
      );
      await world.rows.sql(
        `insert into tessera_identity.scim_users (id, organization_id, provider, user_id, user_name, active, state, created_at, updated_at)
         select ${id('scim')}, ?, ?, ${id('user')}, 'seeded' || n || '@example.com', true, 'active', ?, ? ${seed}`,
        [groupId, tenant.organizationId, tenant.provider, groupId, at, at],
      );
      await world.rows.sql(
        `insert into tessera_identity.scim_group_members (group_id, scim_user_id, organization_id, provider, added_at)
         select ?, ${id('scim')}, ?, ?, ? ${seed}`,
        [groupId, groupId, tenant.organizationId, tenant.provider, at],
      );
      const a = await scim.createUser(tenant, 'last-a@example.com');
      const b = await scim.createUser(tenant, 'last-b@example.com');
      const results = await Promise.all(
        [a, b].map((user) =>
          scim.apply(tenant, {
            kind: 'changeGroup',
            groupId,
            expectedVersion: null,
            steps: [{ kind: 'add', memberIds: [user.scimUserId] }],
          }),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok)).toEqual([{ ok: false, code: 'invalid_transition' }]);
      expect(await world.rows.count('scim_group_members', 'group_id = ?', [groupId])).toBe(10_000);
    });

    it('refuses a group with a member that is no active user of the tenant, writing nothing (invalid_transition)', async () => {
      const tenant = await scim.tenant();
      const other = await scim.tenant();
      const foreign = await scim.createUser(other, 'foreign@example.com');
      const audits = await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId]);
      for (const memberIds of [[testUuidV7()], [foreign.scimUserId], ['not-a-uuid']]) {
        const groupId = testUuidV7();
        expect(
          await scim.apply(tenant, { kind: 'createGroup', groupId, displayName: 'G', externalId: null, memberIds }),
        ).toEqual({ ok: false, code: 'invalid_transition' });
        expect(await world.store.findScimGroup(tenant, groupId)).toBeNull();
      }
      expect(await world.rows.count('audit_events', 'organization_id = ?', [tenant.organizationId])).toBe(audits);
    });
  });
}
