import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testUuidV7 } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import {
  deleteAs,
  getAs,
  NOT_FOUND,
  seedMember,
  seedOrganization,
  seedOutsider,
  tenantRows,
  withoutRequestId,
  type SeededMember,
} from '../../support/tenant-seed.js';

const START = '2026-07-14T08:15:30Z';
const invitationsOf = (organizationId: string) => `/identity/v1/organizations/${organizationId}/invitations`;
const INVITATION_KEYS = ['createdAt', 'email', 'expiresAt', 'id', 'organizationId', 'role', 'state'];

describe('invitation management (routes 30–32)', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let owner: SeededMember;
  let admin: SeededMember;
  let viewer: SeededMember;

  beforeAll(async () => {
    identity = await bootIdentityApp({}, START);
    organizationId = await seedOrganization(identity);
    owner = await seedMember(identity, organizationId, 'owner');
    admin = await seedMember(identity, organizationId, 'admin');
    viewer = await seedMember(identity, organizationId, 'viewer');
  });
  afterAll(async () => identity?.close());

  const invite = (member: SeededMember, body: unknown, organization = organizationId) =>
    post(identity, invitationsOf(organization), member.session).send(body as object);

  async function auditActions(): Promise<{ action: string; actor: unknown; target: { id: string } }[]> {
    const res = await getAs(
      identity,
      `/identity/v1/organizations/${organizationId}/audit-events?limit=100`,
      admin.session,
    );
    expect(res.status).toBe(200);
    return res.body.events;
  }

  it('creates a pending invitation for 7 days and shows its token once; the list never carries the token or its digest', async () => {
    const res = await invite(admin, { email: 'Grace@Example.com', role: 'publisher' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['invitation', 'token']);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.invitation).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId,
      email: 'Grace@Example.com',
      role: 'publisher',
      state: 'pending',
      createdAt: START,
      expiresAt: '2026-07-21T08:15:30Z',
    });
    const listed = await getAs(identity, invitationsOf(organizationId), viewer.session);
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual(res.body.invitation);
    for (const view of listed.body) expect(Object.keys(view).sort()).toEqual(INVITATION_KEYS);
    expect(listed.text).not.toContain(res.body.token);
    const [stored] = await tenantRows(identity).sql(
      'select token_digest_encoded from tessera_identity.invitations where id = ?',
      [res.body.invitation.id],
    );
    expect(listed.text).not.toContain(String(stored!['token_digest_encoded']));
    expect(await auditActions()).toContainEqual(
      expect.objectContaining({
        action: 'invitation.created',
        actor: { type: 'user', userId: admin.userId },
        target: { type: 'invitation', id: res.body.invitation.id },
        request: expect.objectContaining({ method: 'POST', path: invitationsOf(organizationId) }),
      }),
    );
  });

  it('refuses a second pending invitation for the same organization and email in any case with 409', async () => {
    expect((await invite(admin, { email: 'dup@example.com', role: 'viewer' })).status).toBe(201);
    const again = await invite(owner, { email: 'DUP@example.COM', role: 'admin' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const other = await seedOrganization(identity);
    const otherOwner = await seedMember(identity, other, 'owner');
    expect((await invite(otherOwner, { email: 'dup@example.com', role: 'viewer' }, other)).status).toBe(201);
  });

  it('lets only an owner with a recent passkey invite an owner: admin → 404, stale owner → 403, recent owner → 201', async () => {
    const body = { email: 'co-owner@example.com', role: 'owner' };
    const byAdmin = await invite(admin, body);
    expect(byAdmin.status).toBe(404);
    expect(withoutRequestId(byAdmin.body)).toEqual(NOT_FOUND);
    const staleOwner = await seedMember(identity, organizationId, 'owner', {
      authenticatedAt: new Date(Date.parse(START) - 6 * 60_000),
    });
    const stale = await invite(staleOwner, body);
    expect(stale.status).toBe(403);
    expect(stale.body.error.code).toBe('step_up_required');
    expect((await invite(owner, body)).status).toBe(201);
  });

  it('answers the same 404 to a viewer, another tenant, an outsider and for an unknown or deleted organization', async () => {
    const other = await seedOrganization(identity);
    const otherAdmin = await seedMember(identity, other, 'admin');
    const outsider = await seedOutsider(identity);
    const deleted = await seedOrganization(identity, 'deleted');
    const deletedOwner = await seedMember(identity, deleted, 'owner');
    const body = { email: 'nobody@example.com', role: 'viewer' };
    const attempts = [
      invite(viewer, body),
      invite(otherAdmin, body),
      invite(outsider, body),
      invite(admin, body, testUuidV7()),
      invite(deletedOwner, body, deleted),
      getAs(identity, invitationsOf(organizationId), otherAdmin.session),
      getAs(identity, invitationsOf(organizationId), outsider.session),
      getAs(identity, invitationsOf(deleted), deletedOwner.session),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(withoutRequestId(res.body)).toEqual(NOT_FOUND);
    }
    expect(await tenantRows(identity).count('invitations', "lower(email) = 'nobody@example.com'")).toBe(0);
  });

  it.each([
    [{ email: 'no-at-sign', role: 'viewer' }],
    [{ email: 'a@b.c', role: 'superuser' }],
    [{ email: 'a@b.c', role: 'Owner' }],
    [{ email: 'a@b.c' }],
    [{ email: 'a@b.c', role: 'viewer', token: 'x' }],
    [{ email: null, role: 'viewer' }],
  ])('rejects the malformed body %j with 400 before authorization', async (body) => {
    for (const member of [admin, viewer]) {
      const res = await invite(member, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('request_invalid');
    }
  });

  it('revokes a pending invitation once with its audit; anything else is 404', async () => {
    const created = (await invite(admin, { email: 'revoke-me@example.com', role: 'viewer' })).body.invitation;
    const path = `${invitationsOf(organizationId)}/${created.id}`;
    expect((await deleteAs(identity, path, viewer.session)).status).toBe(404);
    const revoked = await deleteAs(identity, path, admin.session);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ ...created, state: 'revoked', revokedAt: START });
    const again = await deleteAs(identity, path, admin.session);
    expect(again.status).toBe(404);
    expect(withoutRequestId(again.body)).toEqual(NOT_FOUND);
    expect((await deleteAs(identity, `${invitationsOf(organizationId)}/${testUuidV7()}`, admin.session)).status).toBe(
      404,
    );
    expect((await deleteAs(identity, `${invitationsOf(organizationId)}/not-a-uuid`, admin.session)).status).toBe(400);
    const other = await seedOrganization(identity);
    const otherOwner = await seedMember(identity, other, 'owner');
    const foreign = (await invite(otherOwner, { email: 'foreign@example.com', role: 'viewer' }, other)).body.invitation;
    expect((await deleteAs(identity, `${invitationsOf(organizationId)}/${foreign.id}`, admin.session)).status).toBe(
      404,
    );
    expect((await deleteAs(identity, `${invitationsOf(other)}/${foreign.id}`, admin.session)).status).toBe(404);
    expect(await auditActions()).toContainEqual(
      expect.objectContaining({ action: 'invitation.revoked', target: { type: 'invitation', id: created.id } }),
    );
    expect((await invite(admin, { email: 'revoke-me@example.com', role: 'viewer' })).status).toBe(201);
  });

  it('revokes an owner invitation only as an owner with a recent passkey', async () => {
    const created = (await invite(owner, { email: 'owner-to-be@example.com', role: 'owner' })).body.invitation;
    const path = `${invitationsOf(organizationId)}/${created.id}`;
    expect(withoutRequestId((await deleteAs(identity, path, admin.session)).body)).toEqual(NOT_FOUND);
    const staleOwner = await seedMember(identity, organizationId, 'owner', {
      authenticatedAt: new Date(Date.parse(START) - 6 * 60_000),
    });
    expect((await deleteAs(identity, path, staleOwner.session)).body.error.code).toBe('step_up_required');
    expect((await deleteAs(identity, path, owner.session)).body.state).toBe('revoked');
  });

  it('shows an expired invitation as expired and still lets it be revoked, freeing its email', async () => {
    const created = (await invite(admin, { email: 'late@example.com', role: 'viewer' })).body.invitation;
    identity.clock.advance({ days: 7 });
    try {
      const fresh = await seedMember(identity, organizationId, 'admin');
      const listed = await getAs(identity, invitationsOf(organizationId), fresh.session);
      expect(listed.body.find((v: { id: string }) => v.id === created.id).state).toBe('expired');
      expect((await invite(fresh, { email: 'late@example.com', role: 'viewer' })).status).toBe(409);
      const revoked = await deleteAs(identity, `${invitationsOf(organizationId)}/${created.id}`, fresh.session);
      expect(revoked.body.state).toBe('revoked');
      expect((await invite(fresh, { email: 'late@example.com', role: 'viewer' })).status).toBe(201);
    } finally {
      identity.clock.set(START);
    }
  });
});
