import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import {
  anotherSession,
  auditsOf,
  call,
  codeOf,
  epochOf,
  membershipPath,
  membershipRow,
  membershipsPath,
  organizationPath,
  rowsOf,
  seedMember,
  type Member,
} from './organization-fixtures.js';

describe('membership routes 26–28', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let owner: Member;
  let admin: Member;
  let viewer: Member;
  beforeEach(async () => {
    identity = await bootIdentityApp();
    organizationId = await rowsOf(identity).organization({ at: identity.clock.now() });
    owner = await seedMember(identity, organizationId, 'owner');
    admin = await seedMember(identity, organizationId, 'admin');
    viewer = await seedMember(identity, organizationId, 'viewer');
  });
  afterEach(async () => identity?.close());

  const patch = (member: Member | { session: Member['session'] }, target: string, role: string) =>
    call(identity, 'patch', membershipPath(organizationId, target), member.session, { role });
  const remove = (member: Member | { session: Member['session'] }, target: string) =>
    call(identity, 'delete', membershipPath(organizationId, target), member.session);
  const me = (member: Member) => call(identity, 'get', '/identity/v1/me', member.session);

  it('lists the current memberships to every member, sorted by id, removed ones left out', async () => {
    const gone = await seedMember(identity, organizationId, 'publisher', { state: 'removed' });
    const res = await call(identity, 'get', membershipsPath(organizationId), viewer.session);
    expect(res.status).toBe(200);
    const ids = [owner, admin, viewer].map((m) => m.membershipId).sort();
    expect(res.body.map((m: { id: string }) => m.id)).toEqual(ids);
    expect(res.body).not.toContainEqual(expect.objectContaining({ id: gone.membershipId }));
    expect(res.body.find((m: { id: string }) => m.id === viewer.membershipId)).toEqual({
      id: viewer.membershipId,
      organizationId,
      userId: viewer.userId,
      role: 'viewer',
      state: 'active',
      version: 0,
      createdAt: '2026-07-14T08:15:30Z',
      updatedAt: '2026-07-14T08:15:30Z',
      user: { id: viewer.userId, displayName: 'Seeded User', primaryEmail: expect.stringMatching(/@example\.test$/) },
    });
  });

  it('names the person of each membership (issue 17): display name, and the primary email only when there is one', async () => {
    const rows = rowsOf(identity);
    await rows.sql(
      `update tessera_identity.users set display_name = 'Grace Hopper', primary_email = null where id = ?`,
      [viewer.userId],
    );
    await rows.sql(
      `update tessera_identity.users set display_name = 'Ada Lovelace', primary_email = 'ada@example.com' where id = ?`,
      [admin.userId],
    );
    const listed = await call(identity, 'get', membershipsPath(organizationId), viewer.session);
    const byUser = new Map(listed.body.map((m: { userId: string; user: unknown }) => [m.userId, m.user]));
    expect(byUser.get(viewer.userId)).toEqual({ id: viewer.userId, displayName: 'Grace Hopper' });
    expect(byUser.get(admin.userId)).toEqual({
      id: admin.userId,
      displayName: 'Ada Lovelace',
      primaryEmail: 'ada@example.com',
    });
    const changed = await patch(admin, viewer.membershipId, 'publisher');
    expect(changed.body.user).toEqual({ id: viewer.userId, displayName: 'Grace Hopper' });
    const removed = await remove(owner, viewer.membershipId);
    expect([removed.status, removed.body.state, removed.body.user]).toEqual([
      200,
      'removed',
      { id: viewer.userId, displayName: 'Grace Hopper' },
    ]);
  });

  it("lets an admin change a non-owner role, revoking the target's sessions through its epoch, with audits", async () => {
    const second = await anotherSession(identity, viewer.userId);
    const res = await patch(admin, viewer.membershipId, 'publisher');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: viewer.membershipId, role: 'publisher', state: 'active', version: 1 });
    expect(await epochOf(identity, viewer.userId)).toBe(1);
    for (const session of [viewer.session, second]) {
      const revoked = await call(identity, 'get', '/identity/v1/me', session);
      expect({ status: revoked.status, code: codeOf(revoked) }).toEqual({ status: 401, code: 'session_revoked' });
    }
    expect((await me(admin)).status).toBe(200);
    expect(await auditsOf(identity, 'membership.changed', viewer.membershipId)).toEqual([
      expect.objectContaining({
        actor_user_id: admin.userId,
        organization_id: organizationId,
        reason_code: 'role_publisher',
      }),
    ]);
    expect(await auditsOf(identity, 'session.revoked', viewer.userId)).toEqual([
      expect.objectContaining({ actor_user_id: admin.userId, reason_code: 'organization_privilege_changed' }),
    ]);
  });

  it('answers a no-op with the current membership and writes nothing', async () => {
    const res = await patch(admin, viewer.membershipId, 'viewer');
    expect(res.body).toMatchObject({ id: viewer.membershipId, role: 'viewer', version: 0 });
    expect(await epochOf(identity, viewer.userId)).toBe(0);
    expect((await me(viewer)).status).toBe(200);
    expect(await auditsOf(identity, 'membership.changed', viewer.membershipId)).toEqual([]);
  });

  it('keeps admins away from owners: making, unmaking or removing an owner is the tenancy 404', async () => {
    const attempts = [
      await patch(admin, viewer.membershipId, 'owner'),
      await patch(admin, owner.membershipId, 'admin'),
      await remove(admin, owner.membershipId),
    ];
    expect(attempts.map((res) => [res.status, codeOf(res)])).toEqual([
      [404, 'not_found'],
      [404, 'not_found'],
      [404, 'not_found'],
    ]);
    expect(await membershipRow(identity, owner.membershipId)).toMatchObject({
      role: 'owner',
      state: 'active',
      version: 0,
    });
    expect(await membershipRow(identity, viewer.membershipId)).toMatchObject({ role: 'viewer', version: 0 });
    expect(await epochOf(identity, owner.userId)).toBe(0);
  });

  it('needs an owner with a recent passkey for owner changes: stale → 403, fresh → promoted', async () => {
    const stale = { session: await anotherSession(identity, owner.userId, 6) };
    const refused = await patch(stale, admin.membershipId, 'owner');
    expect({ status: refused.status, code: codeOf(refused) }).toEqual({ status: 403, code: 'step_up_required' });
    expect(await membershipRow(identity, admin.membershipId)).toMatchObject({ role: 'admin', version: 0 });
    const promoted = await patch(owner, admin.membershipId, 'owner');
    expect(promoted.body).toMatchObject({ role: 'owner', version: 1 });
    expect(codeOf(await me(admin))).toBe('session_revoked');
  });

  it('protects the last owner: it cannot demote or remove itself (409), but can once a second owner exists', async () => {
    const demote = await patch(owner, owner.membershipId, 'admin');
    const leave = await remove(owner, owner.membershipId);
    for (const res of [demote, leave]) {
      expect({ status: res.status, code: codeOf(res), retryable: res.body.error.retryable }).toEqual({
        status: 409,
        code: 'conflict',
        retryable: true,
      });
    }
    expect(await membershipRow(identity, owner.membershipId)).toMatchObject({
      role: 'owner',
      state: 'active',
      version: 0,
    });
    expect(await epochOf(identity, owner.userId)).toBe(0);
    expect((await me(owner)).status).toBe(200);

    const coOwner = await seedMember(identity, organizationId, 'owner');
    const stepDown = await patch(owner, owner.membershipId, 'admin');
    expect(stepDown.body).toMatchObject({ role: 'admin', version: 1 });
    // A self-targeted change revokes the actor's own sessions too.
    expect(codeOf(await me(owner))).toBe('session_revoked');
    const last = await remove(coOwner, coOwner.membershipId);
    expect(codeOf(last)).toBe('conflict');
  });

  it('removes with membership.remove + step-up; the removed member loses its sessions and the organization', async () => {
    const staleAdmin = { session: await anotherSession(identity, admin.userId, 6) };
    expect(codeOf(await remove(staleAdmin, viewer.membershipId))).toBe('step_up_required');
    expect(codeOf(await remove(viewer, admin.membershipId))).toBe('not_found');
    const res = await remove(admin, viewer.membershipId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: viewer.membershipId, state: 'removed', role: 'viewer', version: 1 });
    expect(res.body.removedAt).toBe('2026-07-14T08:15:30Z');
    expect(codeOf(await me(viewer))).toBe('session_revoked');
    const back = await anotherSession(identity, viewer.userId);
    expect(codeOf(await call(identity, 'get', organizationPath(organizationId), back))).toBe('not_found');
    expect(codeOf(await remove(admin, viewer.membershipId))).toBe('not_found');
    expect(codeOf(await patch(admin, viewer.membershipId, 'admin'))).toBe('not_found');
    expect(await auditsOf(identity, 'membership.changed', viewer.membershipId)).toEqual([
      expect.objectContaining({ reason_code: 'removed', organization_id: organizationId }),
    ]);
  });

  it('lets an owner remove another owner with step-up', async () => {
    const coOwner = await seedMember(identity, organizationId, 'owner');
    const res = await remove(owner, coOwner.membershipId);
    expect(res.body).toMatchObject({ id: coOwner.membershipId, state: 'removed' });
    expect(await epochOf(identity, coOwner.userId)).toBe(1);
  });

  it('rejects unknown roles, non-canonical ids and unknown memberships', async () => {
    for (const role of ['superuser', 'Owner', '', 'device']) {
      expect(codeOf(await patch(owner, viewer.membershipId, role))).toBe('request_invalid');
    }
    const extra = await call(identity, 'patch', membershipPath(organizationId, viewer.membershipId), owner.session, {
      role: 'admin',
      state: 'active',
    });
    expect(codeOf(extra)).toBe('request_invalid');
    expect(codeOf(await patch(owner, viewer.membershipId.toUpperCase(), 'admin'))).toBe('request_invalid');
    expect(codeOf(await remove(owner, 'not-a-uuid'))).toBe('request_invalid');
    const unknown = `${viewer.membershipId.slice(0, -4)}0000`;
    expect(codeOf(await remove(owner, unknown))).toBe('not_found');
    expect(await membershipRow(identity, viewer.membershipId)).toMatchObject({ role: 'viewer', version: 0 });
  });
});
