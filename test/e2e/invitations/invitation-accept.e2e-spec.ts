import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootstrapOwner, post } from '../../support/passkey-client.js';
import {
  getAs,
  seedMember,
  seedOrganization,
  seedOutsider,
  tenantRows,
  withoutRequestId,
  type SeededMember,
} from '../../support/tenant-seed.js';

const START = '2026-07-14T08:15:30Z';
const ACCEPT = '/identity/v1/invitations/accept';
const INVALID = { code: 'invalid_credentials', message: 'Authentication failed', retryable: false };

describe('POST /identity/v1/invitations/accept (route 33)', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;

  beforeAll(async () => {
    identity = await bootIdentityApp({}, START);
    organizationId = await seedOrganization(identity);
    admin = await seedMember(identity, organizationId, 'admin');
  });
  afterAll(async () => identity?.close());

  async function invite(email: string, role = 'publisher', organization = organizationId, by = admin) {
    const res = await post(identity, `/identity/v1/organizations/${organization}/invitations`, by.session).send({
      email,
      role,
    });
    expect(res.status).toBe(201);
    return res.body as { invitation: { id: string; email: string; role: string }; token: string };
  }

  const accept = (member: SeededMember, token: string) => post(identity, ACCEPT, member.session).send({ token });

  /** Rows that a failed acceptance must leave untouched. */
  async function footprint() {
    const rows = tenantRows(identity);
    return {
      memberships: await rows.count('memberships'),
      audits: await rows.count('audit_events'),
      invitations: await rows.sql('select id, state, version from tessera_identity.invitations order by id'),
    };
  }

  async function expectRefusedWithoutWrites(attempt: () => Promise<request.Response>) {
    const before = await footprint();
    const res = await attempt();
    expect(res.status).toBe(401);
    expect(withoutRequestId(res.body)).toEqual(INVALID);
    expect(await footprint()).toEqual(before);
  }

  it('makes an existing account whose primary email matches case-insensitively a member with the invited role', async () => {
    const invited = await seedOutsider(identity, 'Bob.Builder@Example.com');
    const { invitation, token } = await invite('bob.builder@EXAMPLE.com', 'publisher');
    const res = await accept(invited, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId,
      userId: invited.userId,
      role: 'publisher',
      state: 'active',
      version: 0,
      createdAt: START,
      updatedAt: START,
    });
    expect(res.text).not.toContain(token);
    const listed = await getAs(identity, `/identity/v1/organizations/${organizationId}/invitations`, admin.session);
    expect(listed.body.find((v: { id: string }) => v.id === invitation.id)).toMatchObject({
      state: 'accepted',
      acceptedAt: START,
    });
    // The new membership works at once: the invitee reads the organization's invitations.
    expect(
      (await getAs(identity, `/identity/v1/organizations/${organizationId}/invitations`, invited.session)).status,
    ).toBe(200);
    const audit = await getAs(
      identity,
      `/identity/v1/organizations/${organizationId}/audit-events?limit=5`,
      admin.session,
    );
    const actions = audit.body.events.map((e: { action: string; actor: unknown }) => [e.action, e.actor]);
    expect(actions).toContainEqual(['invitation.accepted', { type: 'user', userId: invited.userId }]);
    expect(actions).toContainEqual(['membership.created', { type: 'user', userId: invited.userId }]);
    await expectRefusedWithoutWrites(() => accept(invited, token));
  });

  it('answers 401 and writes nothing when the primary email differs', async () => {
    const stranger = await seedOutsider(identity, 'carol@example.com');
    const { invitation, token } = await invite('dave@example.com');
    await expectRefusedWithoutWrites(() => accept(stranger, token));
    const [row] = await tenantRows(identity).sql(
      'select state, version from tessera_identity.invitations where id = ?',
      [invitation.id],
    );
    expect(row).toEqual({ state: 'pending', version: 0 });
  });

  it('answers the same 401 for a malformed, unknown, revoked or expired token and for an existing member', async () => {
    const erin = await seedOutsider(identity, 'erin@example.com');
    await expectRefusedWithoutWrites(() => accept(erin, 'not-a-token-but-long-enough'));
    await expectRefusedWithoutWrites(() => accept(erin, Buffer.alloc(32, 9).toString('base64url')));
    const revoked = await invite('erin@example.com');
    const path = `/identity/v1/organizations/${organizationId}/invitations/${revoked.invitation.id}`;
    const revocation = await request(identity.app.getHttpServer())
      .delete(path)
      .set('origin', TEST_ORIGIN)
      .set('cookie', admin.session.cookie)
      .set('x-csrf-token', admin.session.csrfToken);
    expect(revocation.status).toBe(200);
    await expectRefusedWithoutWrites(() => accept(erin, revoked.token));
    const member = await seedMember(identity, organizationId, 'viewer', { email: 'frank@example.com' });
    const already = await invite('frank@example.com');
    await expectRefusedWithoutWrites(() => accept(member, already.token));
    const late = await invite('erin@example.com');
    identity.clock.advance({ days: 7 });
    try {
      // A session of the current instant: the earlier one has idled out.
      const session = await seedPasskeySession(identity, erin.userId);
      await expectRefusedWithoutWrites(() => post(identity, ACCEPT, session).send({ token: late.token }));
    } finally {
      identity.clock.set(START);
    }
  });

  it('needs a signed-in, non-restricted user with CSRF: anonymous and restricted sessions get 401, a missing CSRF token 403', async () => {
    const { token } = await invite('grace@example.com');
    const anonymous = await request(identity.app.getHttpServer()).post(ACCEPT).send({ token });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('authentication_required');
    const grace = await seedOutsider(identity, 'grace@example.com');
    const noCsrf = await request(identity.app.getHttpServer())
      .post(ACCEPT)
      .set('origin', TEST_ORIGIN)
      .set('cookie', grace.session.cookie)
      .send({ token });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('csrf_invalid');
    const other = await bootIdentityApp({}, START);
    try {
      const restricted = await bootstrapOwner(other, 'grace@example.com');
      const res = await post(other, ACCEPT, restricted).send({ token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('authentication_required');
    } finally {
      await other.close();
    }
    expect((await accept(grace, token)).status).toBe(200);
  });

  it('accepts an owner invitation into an owner membership, and a body with unknown keys is 400', async () => {
    const owner = await seedMember(identity, organizationId, 'owner');
    const { token } = await invite('heidi@example.com', 'owner', organizationId, owner);
    const heidi = await seedOutsider(identity, 'heidi@example.com');
    const extra = await post(identity, ACCEPT, heidi.session).send({ token, role: 'viewer' });
    expect(extra.status).toBe(400);
    const res = await accept(heidi, token);
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('owner');
    const other = await seedOrganization(identity);
    expect(await tenantRows(identity).count('memberships', 'organization_id = ?', [other])).toBe(0);
  });
});
