import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { bootIdentityApp, seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import { passkeyOwner, sessionOf, stepUp } from '../../support/passkey-client.js';
import { bootPasskeyApp, seedSession } from '../passkeys/passkey-fixtures.js';
import {
  anotherSession,
  auditsOf,
  call,
  codeOf,
  membershipsPath,
  organizationPath,
  organizationRow,
  ORGANIZATIONS,
  rowsOf,
  seedMember,
} from './organization-fixtures.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('organization routes 21–25', () => {
  let identity: IdentityTestApp;
  beforeEach(async () => {
    identity = await bootIdentityApp();
  });
  afterEach(async () => identity?.close());

  it('creates an organization whose only member is its creator, as owner, and audits both', async () => {
    const creator = await seedPasskeySession(identity);
    const res = await call(identity, 'post', ORGANIZATIONS, creator, { name: 'Analytical Engines', slug: 'engines' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'Analytical Engines',
      slug: 'engines',
      state: 'active',
      version: 0,
      createdAt: '2026-07-14T08:15:30Z',
      updatedAt: '2026-07-14T08:15:30Z',
    });
    const organizationId = res.body.id as string;
    const members = await call(identity, 'get', membershipsPath(organizationId), creator);
    expect(members.body).toEqual([
      expect.objectContaining({ organizationId, userId: creator.userId, role: 'owner', state: 'active', version: 0 }),
    ]);
    const [created] = await auditsOf(identity, 'organization.created', organizationId);
    expect(created).toMatchObject({
      actor_type: 'user',
      actor_user_id: creator.userId,
      organization_id: organizationId,
    });
    const [membership] = await auditsOf(identity, 'membership.created', members.body[0].id);
    expect(membership).toMatchObject({
      actor_user_id: creator.userId,
      organization_id: organizationId,
      reason_code: 'owner',
    });
  });

  it('needs a recent passkey to create: a stale session gets 403 step_up_required, a federated one too, and nothing is written', async () => {
    const stale = await anotherSession(identity, await rowsOf(identity).user({ at: identity.clock.now() }), 6);
    const refused = await call(identity, 'post', ORGANIZATIONS, stale, { name: 'Late', slug: 'late' });
    expect({ status: refused.status, code: codeOf(refused) }).toEqual({ status: 403, code: 'step_up_required' });
    const federated = await seedSession(identity, await rowsOf(identity).user({ at: identity.clock.now() }), 'oidc');
    const alsoRefused = await call(identity, 'post', ORGANIZATIONS, federated, { name: 'Fed', slug: 'fed' });
    expect({ status: alsoRefused.status, code: codeOf(alsoRefused) }).toEqual({
      status: 403,
      code: 'step_up_required',
    });
    expect(await rowsOf(identity).count('organizations', "slug in ('late', 'fed')")).toBe(0);
    expect(await rowsOf(identity).count('audit_events', "action = 'organization.created'")).toBe(0);
  });

  it('answers a taken slug with 409 conflict and malformed bodies with 400, creating nothing', async () => {
    const creator = await seedPasskeySession(identity);
    expect((await call(identity, 'post', ORGANIZATIONS, creator, { name: 'First', slug: 'taken' })).status).toBe(201);
    const taken = await call(identity, 'post', ORGANIZATIONS, creator, { name: 'Second', slug: 'taken' });
    expect({ status: taken.status, code: codeOf(taken), retryable: taken.body.error.retryable }).toEqual({
      status: 409,
      code: 'conflict',
      retryable: true,
    });
    for (const body of [
      { name: 'Upper', slug: 'Upper' },
      { name: '', slug: 'empty-name' },
      { name: 'x', slug: 'extra', state: 'active' },
      { name: 'x' },
    ]) {
      const res = await call(identity, 'post', ORGANIZATIONS, creator, body);
      expect({ body, status: res.status, code: codeOf(res) }).toEqual({ body, status: 400, code: 'request_invalid' });
    }
    expect(await rowsOf(identity).count('organizations')).toBe(1);
    expect(await rowsOf(identity).count('memberships')).toBe(1);
  });

  it('refuses anonymous callers and restricted sessions with 401 authentication_required', async () => {
    const restricted = await seedSession(
      identity,
      await rowsOf(identity).user({ at: identity.clock.now() }),
      'recovery_code',
    );
    for (const session of [undefined, restricted]) {
      const list = await call(identity, 'get', ORGANIZATIONS, session);
      const create = await call(identity, 'post', ORGANIZATIONS, session, { name: 'No', slug: 'nope' });
      expect([list.status, codeOf(list), create.status, codeOf(create)]).toEqual([
        401,
        'authentication_required',
        401,
        'authentication_required',
      ]);
    }
  });

  it("lists the caller's active memberships in active organizations sorted by id, a federated session only its tenant", async () => {
    const rows = rowsOf(identity);
    const at = identity.clock.now();
    const organizations = [
      await rows.organization({ at }),
      await rows.organization({ at }),
      await rows.organization({ at }),
    ];
    const deleted = await rows.organization({ state: 'deleted', at });
    const userId = await rows.user({ at });
    await rows.membership(organizations[0]!, userId, { role: 'admin', at });
    await rows.membership(organizations[1]!, userId, { role: 'viewer', at });
    await rows.membership(organizations[2]!, userId, { role: 'owner', state: 'removed', at });
    await rows.membership(deleted, userId, { role: 'owner', at });
    const session = await anotherSession(identity, userId);
    const list = await call(identity, 'get', ORGANIZATIONS, session);
    expect(list.status).toBe(200);
    const expected = [
      { id: organizations[0]!, name: 'Seeded Organization', slug: expect.any(String), role: 'admin' },
      { id: organizations[1]!, name: 'Seeded Organization', slug: expect.any(String), role: 'viewer' },
    ].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(list.body).toEqual(expected);
    const federated = await seedSession(identity, userId, 'oidc');
    const pinned = await call(identity, 'get', ORGANIZATIONS, federated);
    const tenant = String(
      (
        await rows.sql('select federation_organization_id as o from tessera_identity.sessions where id = ?', [
          federated.sessionId,
        ])
      )[0]!['o'],
    );
    expect(pinned.body).toEqual([
      { id: tenant, name: 'Seeded Organization', slug: expect.any(String), role: 'viewer' },
    ]);
    const foreign = await call(identity, 'get', organizationPath(organizations[0]!), federated);
    expect(codeOf(foreign)).toBe('not_found');
  });

  it('reads one organization as a summary with the caller role; non-canonical ids are 400', async () => {
    const organizationId = await rowsOf(identity).organization({ at: identity.clock.now() });
    const viewer = await seedMember(identity, organizationId, 'viewer');
    const res = await call(identity, 'get', organizationPath(organizationId), viewer.session);
    expect(res.body).toEqual({
      id: organizationId,
      name: 'Seeded Organization',
      slug: expect.any(String),
      role: 'viewer',
    });
    const uuidV4 = '3f1c1f0e-1b7a-4c1e-9a43-0c7d2b6b9e11';
    for (const id of [organizationId.toUpperCase(), uuidV4, 'engines', `${organizationId}x`]) {
      const bad = await call(identity, 'get', organizationPath(id), viewer.session);
      expect({ id, status: bad.status, code: codeOf(bad) }).toEqual({ id, status: 400, code: 'request_invalid' });
    }
  });

  it('renames with organization.update (admins included, viewers hidden) and audits organization.changed', async () => {
    const organizationId = await rowsOf(identity).organization({ at: identity.clock.now() });
    const admin = await seedMember(identity, organizationId, 'admin', { stepAgeMinutes: 60 });
    const viewer = await seedMember(identity, organizationId, 'viewer');
    identity.clock.advance({ minutes: 1 });
    const renamed = await call(identity, 'patch', organizationPath(organizationId), admin.session, {
      name: 'Engines Ltd',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      id: organizationId,
      name: 'Engines Ltd',
      state: 'active',
      version: 1,
      updatedAt: '2026-07-14T08:16:30Z',
    });
    expect(
      codeOf(await call(identity, 'patch', organizationPath(organizationId), viewer.session, { name: 'Mine' })),
    ).toBe('not_found');
    expect(
      codeOf(await call(identity, 'patch', organizationPath(organizationId), admin.session, { name: 'x', slug: 'y' })),
    ).toBe('request_invalid');
    expect(await auditsOf(identity, 'organization.changed', organizationId)).toEqual([
      expect.objectContaining({ actor_user_id: admin.userId, organization_id: organizationId, outcome: 'succeeded' }),
    ]);
    expect((await organizationRow(identity, organizationId))['name']).toBe('Engines Ltd');
  });

  it('soft-deletes with organization.delete then step-up; afterwards the organization is gone from every route', async () => {
    const organizationId = await rowsOf(identity).organization({ at: identity.clock.now() });
    const owner = await seedMember(identity, organizationId, 'owner', { stepAgeMinutes: 6 });
    const admin = await seedMember(identity, organizationId, 'admin');
    const path = organizationPath(organizationId);
    expect(codeOf(await call(identity, 'delete', path, admin.session))).toBe('not_found');
    expect(codeOf(await call(identity, 'delete', path, owner.session))).toBe('step_up_required');
    expect((await organizationRow(identity, organizationId))['state']).toBe('active');
    const fresh = await anotherSession(identity, owner.userId);
    const deleted = await call(identity, 'delete', path, fresh);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: organizationId, state: 'deleted', version: 1 });
    expect(deleted.body.deletedAt).toMatch(TIMESTAMP);
    expect(await auditsOf(identity, 'organization.deleted', organizationId)).toHaveLength(1);
    expect(codeOf(await call(identity, 'get', path, fresh))).toBe('not_found');
    expect(codeOf(await call(identity, 'delete', path, fresh))).toBe('not_found');
    expect((await call(identity, 'get', ORGANIZATIONS, fresh)).body).toEqual([]);
  });

  it('creates an organization after a real passkey step-up once the sign-in went stale', async () => {
    await identity.close();
    identity = await bootPasskeyApp();
    const { authenticator, session } = await passkeyOwner(identity);
    identity.clock.advance({ minutes: 6 });
    const stale = await call(identity, 'post', ORGANIZATIONS, session, { name: 'Babbage', slug: 'babbage' });
    expect(codeOf(stale)).toBe('step_up_required');
    const stepped = await stepUp(identity, session, authenticator);
    expect(stepped.status).toBe(200);
    const created = await call(identity, 'post', ORGANIZATIONS, sessionOf(stepped), {
      name: 'Babbage',
      slug: 'babbage',
    });
    expect(created.status).toBe(201);
    const list = await call(identity, 'get', ORGANIZATIONS, sessionOf(stepped));
    expect(list.body.map((o: { slug: string; role: string }) => [o.slug, o.role]).sort()).toEqual([
      ['babbage', 'owner'],
      ['engines', 'owner'],
    ]);
  });
});
