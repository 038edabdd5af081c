import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { createConnection, patchOp, scim, scimTenant, scimUser, type ScimTenantFixture } from './scim.fixtures.js';

interface Provisioned {
  readonly tenant: ScimTenantFixture;
  readonly token: string;
  readonly userId: string;
  readonly groupId: string;
  readonly userName: string;
}

async function provision(
  identity: IdentityTestApp,
  tenant: ScimTenantFixture,
  token: string,
  tag: string,
): Promise<Provisioned> {
  const userName = `${tag}.member@example.com`;
  const user = await scim(identity, token, 'post', '/scim/v2/Users', scimUser(userName, { externalId: `${tag}-ext` }));
  expect(user.status).toBe(201);
  const group = await scim(identity, token, 'post', '/scim/v2/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: `${tag} group`,
    externalId: `${tag}-group`,
    members: [{ value: user.body.id }],
  });
  expect(group.status).toBe(201);
  return { tenant, token, userId: user.body.id, groupId: group.body.id, userName };
}

/** Every request a token could make about `victim`'s resources. */
function attempts(victim: Provisioned) {
  const q = (filter: string) => `?filter=${encodeURIComponent(filter)}`;
  return {
    reads: [`/scim/v2/Users/${victim.userId}`, `/scim/v2/Groups/${victim.groupId}`],
    filters: [
      `/scim/v2/Users${q(`userName eq "${victim.userName}"`)}`,
      `/scim/v2/Users${q(`id eq "${victim.userId}"`)}`,
      `/scim/v2/Users${q(`externalId eq "${victim.tenant.organizationId}" or userName sw "${victim.userName.slice(0, 3)}"`)}`,
      `/scim/v2/Users${q(`emails[value co "${victim.userName.split('@')[0]}"] or userName pr`)}`,
      `/scim/v2/Groups${q(`displayName sw "${victim.userName.split('.')[0]}"`)}`,
      `/scim/v2/Groups${q(`members.value eq "${victim.userId}"`)}`,
      `/scim/v2/Groups${q(`id eq "${victim.groupId}"`)}`,
    ],
    writes: [
      ['put', `/scim/v2/Users/${victim.userId}`, scimUser(victim.userName, { active: false })],
      ['patch', `/scim/v2/Users/${victim.userId}`, patchOp({ op: 'replace', path: 'active', value: false })],
      ['delete', `/scim/v2/Users/${victim.userId}`, undefined],
      [
        'put',
        `/scim/v2/Groups/${victim.groupId}`,
        { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'taken', members: [] },
      ],
      ['patch', `/scim/v2/Groups/${victim.groupId}`, patchOp({ op: 'remove', path: 'members' })],
      ['delete', `/scim/v2/Groups/${victim.groupId}`, undefined],
    ] as const,
  };
}

describe('SCIM tenant isolation: a token of tenant A never reads, matches or changes tenant B', () => {
  let identity: IdentityTestApp;
  let a: Provisioned;
  let b: Provisioned;
  let sameOrganization: Provisioned;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp({}, new Date().toISOString());
    const tenantA = await scimTenant(identity, 'okta');
    const tenantB = await scimTenant(identity, 'okta');
    a = await provision(identity, tenantA, tenantA.token, 'alpha');
    b = await provision(identity, tenantB, tenantB.token, 'bravo');
    // Another provider of B's own organization is another tenant too (provider key <name>:<org>).
    const entra = await createConnection(identity, tenantB.organizationId, tenantB.owner.session, 'entra');
    expect(entra.status).toBe(201);
    sameOrganization = { ...b, token: entra.body.token as string };
  }, 120_000);
  afterAll(() => identity.close());

  for (const [label, attacker] of [
    ['another organization', () => a],
    ['another provider of the same organization', () => sameOrganization],
  ] as const) {
    it(`${label}: every route and filter on B's ids answers 404 or nothing, and B is unchanged`, async () => {
      const victim = b;
      const token = attacker().token;
      const { reads, filters, writes } = attempts(victim);
      for (const path of reads) {
        const res = await scim(identity, token, 'get', path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
      }
      for (const path of filters) {
        const res = await scim(identity, token, 'get', path);
        expect({ path, status: res.status, body: res.text }).toEqual({ path, status: 200, body: expect.any(String) });
        const ids = (res.body.Resources as { id: string }[]).map((resource) => resource.id);
        expect({ path, leaked: ids.filter((id) => id === victim.userId || id === victim.groupId) }).toEqual({
          path,
          leaked: [],
        });
      }
      for (const [method, path, body] of writes) {
        const res = await scim(identity, token, method, path, body);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
      const ownUser = await scim(identity, token, 'post', '/scim/v2/Users', scimUser(`${label.length}.x@example.com`));
      const addForeign = await scim(identity, token, 'post', '/scim/v2/Groups', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: `foreign members ${label}`,
        members: [{ value: victim.userId }],
      });
      expect(ownUser.status).toBe(201);
      expect(addForeign.status).toBe(400);
      expect(addForeign.body.scimType).toBe('invalidValue');
      const still = await scim(identity, victim.token, 'get', `/scim/v2/Users/${victim.userId}`);
      expect(still.status).toBe(200);
      expect(still.body).toMatchObject({ active: true, meta: { version: 'W/"1"' } });
      const group = await scim(identity, victim.token, 'get', `/scim/v2/Groups/${victim.groupId}`);
      expect(group.body).toMatchObject({ displayName: 'bravo group', members: [{ value: victim.userId }] });
    });
  }

  it('the same userName and externalId may exist in two tenants (uniqueness is per tenant)', async () => {
    const res = await scim(
      identity,
      a.token,
      'post',
      '/scim/v2/Users',
      scimUser(b.userName, { externalId: 'bravo-ext' }),
    );
    expect(res.status).toBe(201);
    const listed = await scim(
      identity,
      a.token,
      'get',
      `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${b.userName}"`)}`,
    );
    expect(listed.body.Resources.map((user: { id: string }) => user.id)).toEqual([res.body.id]);
  });
});
