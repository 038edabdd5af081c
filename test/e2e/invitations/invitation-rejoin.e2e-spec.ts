import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bootIdentityApp, seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { seedMember, seedOrganization, tenantRows, type SeededMember } from '../../support/tenant-seed.js';
import { auditsOf, call, membershipPath, membershipRow } from '../organizations/organization-fixtures.js';

describe('a removed member rejoins through a new invitation', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let owner: SeededMember;

  beforeAll(async () => {
    identity = await bootIdentityApp();
    organizationId = await seedOrganization(identity);
    owner = await seedMember(identity, organizationId, 'owner');
  });
  afterAll(async () => identity?.close());

  /** A member of the organization, removed by the owner over HTTP. */
  async function removedMember(role: 'admin' | 'viewer' = 'admin'): Promise<SeededMember> {
    const member = await seedMember(identity, organizationId, role);
    const removed = await call(identity, 'delete', membershipPath(organizationId, member.membershipId), owner.session);
    expect(removed.status).toBe(200);
    return member;
  }

  async function invite(email: string, role: string): Promise<string> {
    const path = `/identity/v1/organizations/${organizationId}/invitations`;
    const res = await post(identity, path, owner.session).send({ email, role });
    expect(res.status).toBe(201);
    return (res.body as { token: string }).token;
  }

  it('reactivates the removed membership with the invited role on a signed-in accept (it answered 401: the unique index failed)', async () => {
    const member = await removedMember('admin');
    const token = await invite(member.email, 'viewer');
    const session = await seedPasskeySession(identity, member.userId);
    const res = await post(identity, '/identity/v1/invitations/accept', session).send({ token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: member.membershipId, userId: member.userId, role: 'viewer', state: 'active' });
    expect(await membershipRow(identity, member.membershipId)).toMatchObject({
      role: 'viewer',
      state: 'active',
      removed_at: null,
    });
    const created = await auditsOf(identity, 'membership.created', member.membershipId);
    expect(created.map((a) => [a['reason_code'], a['actor_user_id'], a['organization_id']])).toEqual([
      ['rejoined', member.userId, organizationId],
    ]);
    const listed = await call(identity, 'get', `/identity/v1/organizations/${organizationId}/memberships`, session);
    expect(listed.status).toBe(200);
  });

  it('a rejoined member who is removed again can rejoin again, and an active member cannot accept a second invitation', async () => {
    const member = await removedMember('viewer');
    const first = await invite(member.email, 'publisher');
    let session = await seedPasskeySession(identity, member.userId);
    expect((await post(identity, '/identity/v1/invitations/accept', session).send({ token: first })).status).toBe(200);
    const duplicate = await invite(member.email, 'admin');
    const refused = await post(identity, '/identity/v1/invitations/accept', session).send({ token: duplicate });
    expect(refused.status).toBe(401);
    expect((await membershipRow(identity, member.membershipId))['role']).toBe('publisher');
    const removed = await call(identity, 'delete', membershipPath(organizationId, member.membershipId), owner.session);
    expect(removed.status).toBe(200);
    session = await seedPasskeySession(identity, member.userId);
    expect((await post(identity, '/identity/v1/invitations/accept', session).send({ token: duplicate })).status).toBe(
      200,
    );
    expect(await membershipRow(identity, member.membershipId)).toMatchObject({ role: 'admin', state: 'active' });
  });

  it("never lets an anonymous enrollment take over the removed member's account: refused, membership stays removed", async () => {
    const member = await removedMember('admin');
    const token = await invite(member.email, 'viewer');
    const users = await tenantRows(identity).count('users');
    const enrolled = await post(identity, '/identity/v1/invitations/enroll').send({ token, displayName: 'Mallory' });
    expect(enrolled.status).toBe(401);
    expect(await tenantRows(identity).count('users')).toBe(users);
    expect((await membershipRow(identity, member.membershipId))['state']).toBe('removed');
    // The same invitation, accepted after signing in, is the way back.
    const session = await seedPasskeySession(identity, member.userId);
    expect((await post(identity, '/identity/v1/invitations/accept', session).send({ token })).status).toBe(200);
    expect((await membershipRow(identity, member.membershipId))['state']).toBe('active');
  });
});
