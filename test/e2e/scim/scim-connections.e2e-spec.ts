import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { deleteAs, getAs, NOT_FOUND, seedMember, withoutRequestId } from '../../support/tenant-seed.js';
import { createConnection, postAs, scim, scimTenant, SCIM_TYPE } from './scim.fixtures.js';

const LIST = '/scim/v2/Users?count=1';

describe('SCIM connections managed by the organization (issue 15, Deliver 2)', () => {
  let identity: IdentityTestApp;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp();
  }, 120_000);
  afterAll(() => identity.close());

  it('an owner creates a connection, gets its token once, and the token provisions that organization', async () => {
    const tenant = await scimTenant(identity, 'okta', [{ match: { displayName: 'Admins' }, role: 'admin' }]);
    const listed = await getAs(
      identity,
      `/identity/v1/organizations/${tenant.organizationId}/scim/connections`,
      tenant.owner.session,
    );
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: tenant.connectionId,
        organizationId: tenant.organizationId,
        providerName: 'okta',
        groupRoles: [{ match: { displayName: 'Admins' }, role: 'admin' }],
        state: 'active',
        baseUrl: 'http://localhost:3000/scim/v2',
        revokedAt: null,
      }),
    ]);
    expect(listed.text).not.toContain(tenant.token);
    expect(listed.text).not.toContain(tenant.token.split('.')[1]);
    const res = await scim(identity, tenant.token, 'get', LIST);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(SCIM_TYPE);
  });

  it('refuses bad bodies, an owner role rule and a second active connection of one provider name', async () => {
    const tenant = await scimTenant(identity, 'entra');
    const path = `/identity/v1/organizations/${tenant.organizationId}/scim/connections`;
    for (const body of [
      { providerName: 'Okta', groupRoles: [] },
      { providerName: 'x'.repeat(65), groupRoles: [] },
      { providerName: 'okta' },
      { providerName: 'okta', groupRoles: [{ match: { displayName: 'Owners' }, role: 'owner' }] },
      { providerName: 'okta', groupRoles: [{ match: { displayName: 'A', externalId: 'b' }, role: 'admin' }] },
      { providerName: 'okta', groupRoles: [], extra: true },
    ]) {
      const res = await postAs(identity, path, tenant.owner.session, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    const duplicate = await createConnection(identity, tenant.organizationId, tenant.owner.session, 'entra');
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('conflict');
  });

  it('needs scim.manage (a viewer and a publisher see 404) and a recent passkey (403 step_up_required)', async () => {
    const tenant = await scimTenant(identity, 'okta');
    const path = `/identity/v1/organizations/${tenant.organizationId}/scim/connections`;
    for (const role of ['viewer', 'publisher'] as const) {
      const member = await seedMember(identity, tenant.organizationId, role);
      const listed = await getAs(identity, path, member.session);
      expect(listed.status).toBe(404);
      expect(withoutRequestId(listed.body)).toEqual(NOT_FOUND);
      expect((await createConnection(identity, tenant.organizationId, member.session, 'generic')).status).toBe(404);
    }
    const stale = await seedMember(identity, tenant.organizationId, 'admin', {
      authenticatedAt: new Date(identity.clock.now().getTime() - 6 * 60_000),
    });
    expect((await getAs(identity, path, stale.session)).status).toBe(200);
    const refused = await createConnection(identity, tenant.organizationId, stale.session, 'generic');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('step_up_required');
    const fresh = await seedMember(identity, tenant.organizationId, 'admin');
    expect((await createConnection(identity, tenant.organizationId, fresh.session, 'generic')).status).toBe(201);
  });

  it('rotation: the new token works at once, the old one for 10 more minutes, then 401', async () => {
    const tenant = await scimTenant(identity, 'okta');
    const rotated = await postAs(
      identity,
      `/identity/v1/organizations/${tenant.organizationId}/scim/connections/${tenant.connectionId}/rotate`,
      tenant.owner.session,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.connection).toMatchObject({ id: tenant.connectionId, state: 'active' });
    const next = rotated.body.token as string;
    expect(next).not.toBe(tenant.token);
    expect((await scim(identity, next, 'get', LIST)).status).toBe(200);
    expect((await scim(identity, tenant.token, 'get', LIST)).status).toBe(200);
    identity.clock.advance({ minutes: 9, seconds: 59 });
    expect((await scim(identity, tenant.token, 'get', LIST)).status).toBe(200);
    identity.clock.advance({ seconds: 1 });
    const expired = await scim(identity, tenant.token, 'get', LIST);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '401',
      detail: 'Authentication failed',
    });
    expect(expired.headers['www-authenticate']).toBe('Bearer realm="scim"');
    expect((await scim(identity, next, 'get', LIST)).status).toBe(200);
  });

  it('revocation answers the revoked view and stops the token at once; revoking again is 404', async () => {
    const tenant = await scimTenant(identity, 'okta');
    const path = `/identity/v1/organizations/${tenant.organizationId}/scim/connections/${tenant.connectionId}`;
    const revoked = await deleteAs(identity, path, tenant.owner.session);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: tenant.connectionId, state: 'revoked', revokedAt: expect.any(String) });
    expect(revoked.text).not.toContain(tenant.token);
    expect((await scim(identity, tenant.token, 'get', LIST)).status).toBe(401);
    expect((await deleteAs(identity, path, tenant.owner.session)).status).toBe(404);
    const again = await createConnection(identity, tenant.organizationId, tenant.owner.session, 'okta');
    expect(again.status).toBe(201);
  });

  it('unknown, malformed and missing tokens are 401 in the SCIM envelope; discovery needs none', async () => {
    const tenant = await scimTenant(identity, 'okta');
    const [selector] = tenant.token.split('.');
    for (const token of [`${selector}.${'A'.repeat(43)}`, 'not-a-token', `${tenant.token}x`]) {
      const res = await scim(identity, token, 'get', LIST);
      expect({ token, status: res.status }).toEqual({ token, status: 401 });
      expect(res.headers['content-type']).toBe(SCIM_TYPE);
    }
    const anonymous = await getAs(identity, LIST);
    expect(anonymous.status).toBe(401);
    const config = await getAs(identity, '/scim/v2/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
    });
    expect((await getAs(identity, '/scim/v2/ResourceTypes')).body.totalResults).toBe(2);
    expect((await getAs(identity, '/scim/v2/Schemas')).body.totalResults).toBe(4);
    expect((await getAs(identity, '/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User')).status).toBe(200);
    const unknown = await scim(identity, tenant.token, 'get', '/scim/v2/Devices');
    expect(unknown.status).toBe(404);
    expect(unknown.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  });
});
