import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import { seedOrganization } from '../../support/tenant-seed.js';
import { familyRow, seedDevice } from '../device-bearer/device-bearer.fixtures.js';
import { membershipRow, seedFederatedSession, sessionState } from './scim-deprovisioning.fixtures.js';
import {
  IDENTITY_EXTENSION,
  patchOp,
  scim,
  scimTenant,
  scimUser,
  tenantRows,
  type ScimTenantFixture,
} from './scim.fixtures.js';

interface World {
  readonly tenant: ScimTenantFixture;
  readonly scimUserId: string;
  readonly userId: string;
  readonly membershipId: string;
  readonly otherOrganizationId: string;
  readonly passkeyCookie: string;
  readonly federatedSessionId: string;
  readonly tenantFamilyId: string;
  readonly tenantAccessToken: string;
  readonly otherFamilyId: string;
}

async function world(identity: IdentityTestApp, groupRoles: Parameters<typeof scimTenant>[2] = []): Promise<World> {
  const tenant = await scimTenant(identity, 'okta', groupRoles);
  const created = await scim(
    identity,
    tenant.token,
    'post',
    '/scim/v2/Users',
    scimUser(`leaver-${Math.random().toString(36).slice(2, 8)}@example.com`),
  );
  expect(created.status).toBe(201);
  const userId = created.body[IDENTITY_EXTENSION].userId as string;
  const { id: membershipId } = await membershipRow(identity, tenant.organizationId, userId);
  const otherOrganizationId = await seedOrganization(identity);
  const otherMembershipId = await tenantRows(identity).membership(otherOrganizationId, userId, {
    role: 'publisher',
    at: identity.clock.now(),
  });
  const passkey = await seedPasskeySession(identity, userId);
  const federatedSessionId = await seedFederatedSession(identity, tenant.organizationId, userId);
  const tenantDevice = await seedDevice(identity.app, tenant.organizationId, {
    member: { userId, membershipId },
    at: identity.clock.now(),
  });
  const otherDevice = await seedDevice(identity.app, otherOrganizationId, {
    member: { userId, membershipId: otherMembershipId },
    at: identity.clock.now(),
  });
  return {
    tenant,
    scimUserId: created.body.id,
    userId,
    membershipId,
    otherOrganizationId,
    passkeyCookie: passkey.cookie,
    federatedSessionId,
    tenantFamilyId: tenantDevice.familyId,
    tenantAccessToken: tenantDevice.accessToken,
    otherFamilyId: otherDevice.familyId,
  };
}

function me(identity: IdentityTestApp, headers: Record<string, string>) {
  let req = request(identity.app.getHttpServer()).get('/identity/v1/me');
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req;
}

async function expectTenantRevokedOnly(identity: IdentityTestApp, w: World): Promise<void> {
  expect(await sessionState(identity, w.federatedSessionId)).toBe('revoked');
  expect((await familyRow(identity.app, w.tenantFamilyId)).state).toBe('revoked');
  expect((await familyRow(identity.app, w.tenantFamilyId)).activeAccessTokens).toBe(0);
  expect((await me(identity, { authorization: `Bearer ${w.tenantAccessToken}` })).status).toBe(401);
  // Untouched: the passkey session, the user epoch, the other organization and its device family.
  expect((await me(identity, { cookie: w.passkeyCookie })).status).toBe(200);
  expect((await familyRow(identity.app, w.otherFamilyId)).state).toBe('active');
  const other = await membershipRow(identity, w.otherOrganizationId, w.userId);
  expect(other).toMatchObject({ role: 'publisher', state: 'active', epoch: 0 });
}

describe('SCIM deprovisioning effects (identity-model §5.10)', () => {
  let identity: IdentityTestApp;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp({}, new Date().toISOString());
  }, 120_000);
  afterAll(() => identity.close());

  it('active=false removes the tenant membership and revokes only that tenant’s federated sessions and device families', async () => {
    const w = await world(identity);
    const res = await scim(
      identity,
      w.tenant.token,
      'patch',
      `/scim/v2/Users/${w.scimUserId}`,
      patchOp({ op: 'replace', path: 'active', value: false }),
    );
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(false);
    expect(await membershipRow(identity, w.tenant.organizationId, w.userId)).toMatchObject({
      state: 'removed',
      epoch: 0,
    });
    await expectTenantRevokedOnly(identity, w);
    const audit = await tenantRows(identity).sql(
      'select action, actor_type, target_type, reason_code from tessera_identity.audit_events where organization_id = ? order by occurred_at, id',
      [w.tenant.organizationId],
    );
    const actions = audit.map((row) => row['action']);
    expect(actions).toEqual(
      expect.arrayContaining([
        'scim.mutation_applied',
        'membership.changed',
        'session.revoked',
        'device_token.revoked',
      ]),
    );
    expect(
      audit
        .filter((row) => row['action'] === 'scim.mutation_applied')
        .every((row) => row['reason_code'] === 'scim:okta' && row['actor_type'] === 'system'),
    ).toBe(true);
  });

  it('DELETE has the same effects and the user record stays', async () => {
    const w = await world(identity);
    expect((await scim(identity, w.tenant.token, 'delete', `/scim/v2/Users/${w.scimUserId}`)).status).toBe(204);
    expect(await membershipRow(identity, w.tenant.organizationId, w.userId)).toMatchObject({ state: 'removed' });
    await expectTenantRevokedOnly(identity, w);
    expect(await tenantRows(identity).count('users', "id = ? and state = 'active'", [w.userId])).toBe(1);
  });

  it('a SCIM role change (group mapped to admin) revokes the tenant’s federated sessions and device families too', async () => {
    const w = await world(identity, [{ match: { displayName: 'Admins' }, role: 'admin' }]);
    const group = await scim(identity, w.tenant.token, 'post', '/scim/v2/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Admins',
      members: [{ value: w.scimUserId }],
    });
    expect(group.status).toBe(201);
    expect(await membershipRow(identity, w.tenant.organizationId, w.userId)).toMatchObject({
      role: 'admin',
      state: 'active',
      epoch: 0,
    });
    await expectTenantRevokedOnly(identity, w);
  });

  it('the last-owner rule holds on the final state: the only owner cannot be deprovisioned, nothing is written', async () => {
    const w = await world(identity);
    const rows = tenantRows(identity);
    await rows.sql("update tessera_identity.memberships set role = 'owner' where id = ?", [w.membershipId]);
    await rows.sql(
      "update tessera_identity.memberships set state = 'removed', removed_at = now() where organization_id = ? and user_id = ?",
      [w.tenant.organizationId, w.tenant.owner.userId],
    );
    const before = await rows.count('audit_events', 'organization_id = ?', [w.tenant.organizationId]);
    const refused = await scim(
      identity,
      w.tenant.token,
      'patch',
      `/scim/v2/Users/${w.scimUserId}`,
      patchOp({ op: 'replace', path: 'active', value: false }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '409' });
    expect(await membershipRow(identity, w.tenant.organizationId, w.userId)).toMatchObject({
      role: 'owner',
      state: 'active',
    });
    expect(await sessionState(identity, w.federatedSessionId)).toBe('active');
    expect(await rows.count('audit_events', 'organization_id = ?', [w.tenant.organizationId])).toBe(before);
    const still = await scim(identity, w.tenant.token, 'get', `/scim/v2/Users/${w.scimUserId}`);
    expect(still.body.active).toBe(true);
    // With another owner, the same request applies.
    await rows.sql(
      "update tessera_identity.memberships set state = 'active', removed_at = null where organization_id = ? and user_id = ?",
      [w.tenant.organizationId, w.tenant.owner.userId],
    );
    const applied = await scim(
      identity,
      w.tenant.token,
      'patch',
      `/scim/v2/Users/${w.scimUserId}`,
      patchOp({ op: 'replace', path: 'active', value: false }),
    );
    expect(applied.status).toBe(200);
    expect(await membershipRow(identity, w.tenant.organizationId, w.userId)).toMatchObject({ state: 'removed' });
  });
});
