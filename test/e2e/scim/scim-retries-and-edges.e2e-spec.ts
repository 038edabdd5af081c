import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { membershipRow } from './scim-deprovisioning.fixtures.js';
import {
  IDENTITY_EXTENSION,
  patchOp,
  scim,
  scimTenant,
  scimUser,
  tenantRows,
  type ScimTenantFixture,
} from './scim.fixtures.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

describe('SCIM retries, exact removals and state that only explicit requests change', () => {
  let identity: IdentityTestApp;
  let tenant: ScimTenantFixture;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp({}, new Date().toISOString());
    tenant = await scimTenant(identity, 'okta', [{ match: { displayName: 'Admins' }, role: 'admin' }]);
  }, 120_000);
  afterAll(() => identity.close());

  async function user(name: string) {
    const res = await scim(identity, tenant.token, 'post', '/scim/v2/Users', scimUser(`${name}@example.com`));
    expect(res.status).toBe(201);
    return { id: res.body.id as string, userId: res.body[IDENTITY_EXTENSION].userId as string };
  }

  it('a retried DELETE with its Idempotency-Key answers 204 again; a retried If-Match PATCH answers its first 200', async () => {
    const gone = await user('retry-delete');
    const key = { 'idempotency-key': `delete-${gone.id}` };
    expect((await scim(identity, tenant.token, 'delete', `/scim/v2/Users/${gone.id}`, undefined, key)).status).toBe(
      204,
    );
    expect((await scim(identity, tenant.token, 'delete', `/scim/v2/Users/${gone.id}`, undefined, key)).status).toBe(
      204,
    );
    const kept = await user('retry-ifmatch');
    const headers = { 'idempotency-key': `patch-${kept.id}`, 'if-match': 'W/"1"' };
    const body = patchOp({ op: 'replace', path: 'title', value: 'Engineer' });
    const first = await scim(identity, tenant.token, 'patch', `/scim/v2/Users/${kept.id}`, body, headers);
    const again = await scim(identity, tenant.token, 'patch', `/scim/v2/Users/${kept.id}`, body, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: kept.id, title: 'Engineer', meta: { version: 'W/"2"' } });
    const group = await scim(identity, tenant.token, 'post', '/scim/v2/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Retry group',
    });
    const groupKey = { 'idempotency-key': `delete-${group.body.id}` };
    expect(
      (await scim(identity, tenant.token, 'delete', `/scim/v2/Groups/${group.body.id}`, undefined, groupKey)).status,
    ).toBe(204);
    expect(
      (await scim(identity, tenant.token, 'delete', `/scim/v2/Groups/${group.body.id}`, undefined, groupKey)).status,
    ).toBe(204);
  });

  it('member ids sent upper-case still name the member: removal by path filter and by value array is exact', async () => {
    const [a, b, c] = [await user('upper-a'), await user('upper-b'), await user('upper-c')];
    const group = await scim(identity, tenant.token, 'post', '/scim/v2/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Upper case members',
      members: [{ value: a.id.toUpperCase() }, { value: b.id }, { value: c.id }],
    });
    expect(group.status).toBe(201);
    const path = `/scim/v2/Groups/${group.body.id}`;
    const okta = patchOp({ op: 'remove', path: `members[value eq "${a.id.toUpperCase()}"]` });
    expect((await scim(identity, tenant.token, 'patch', path, okta)).status).toBe(204);
    const entra = patchOp({ op: 'Remove', path: 'members', value: [{ value: b.id.toUpperCase() }] });
    expect((await scim(identity, tenant.token, 'patch', path, entra)).status).toBe(204);
    const left = await scim(identity, tenant.token, 'get', path);
    expect(left.body.members.map((member: { value: string }) => member.value)).toEqual([c.id]);
  });

  it('a PATCH path that names no User attribute is 400 invalidPath, never a silent 200', async () => {
    const typo = await user('typo');
    const res = await scim(
      identity,
      tenant.token,
      'patch',
      `/scim/v2/Users/${typo.id}`,
      patchOp({ op: 'replace', path: 'actve', value: false }),
    );
    expect(res.status).toBe(400);
    expect(res.body.scimType).toBe('invalidPath');
    const ignored = await scim(
      identity,
      tenant.token,
      'patch',
      `/scim/v2/Users/${typo.id}`,
      patchOp(
        { op: 'add', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0100' },
        { op: 'replace', path: 'active', value: false },
      ),
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body.active).toBe(false);
  });

  it('a PUT that leaves active out keeps a deprovisioned user deprovisioned', async () => {
    const leaver = await user('put-leaver');
    const path = `/scim/v2/Users/${leaver.id}`;
    expect(
      (await scim(identity, tenant.token, 'patch', path, patchOp({ op: 'replace', path: 'active', value: false })))
        .status,
    ).toBe(200);
    const put = await scim(identity, tenant.token, 'put', path, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'put-leaver@example.com',
      title: 'Alumnus',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ active: false, title: 'Alumnus' });
    expect(await membershipRow(identity, tenant.organizationId, leaver.userId)).toMatchObject({ state: 'removed' });
  });

  it('a membership removed by an administrator stays removed on unrelated SCIM changes, and never comes back as owner', async () => {
    const person = await user('removed-owner');
    const rows = tenantRows(identity);
    await rows.sql(
      "update tessera_identity.memberships set role = 'owner', state = 'removed', removed_at = now() where organization_id = ? and user_id = ?",
      [tenant.organizationId, person.userId],
    );
    const path = `/scim/v2/Users/${person.id}`;
    expect(
      (await scim(identity, tenant.token, 'patch', path, patchOp({ op: 'replace', path: 'title', value: 'Any' })))
        .status,
    ).toBe(200);
    expect(await membershipRow(identity, tenant.organizationId, person.userId)).toMatchObject({
      role: 'owner',
      state: 'removed',
    });
    // An explicit deactivate + reactivate brings the person back with the mapped role only.
    expect(
      (await scim(identity, tenant.token, 'patch', path, patchOp({ op: 'replace', path: 'active', value: false })))
        .status,
    ).toBe(200);
    expect(
      (await scim(identity, tenant.token, 'patch', path, patchOp({ op: 'replace', path: 'active', value: true })))
        .status,
    ).toBe(200);
    expect(await membershipRow(identity, tenant.organizationId, person.userId)).toMatchObject({
      role: 'viewer',
      state: 'active',
    });
  });
});
