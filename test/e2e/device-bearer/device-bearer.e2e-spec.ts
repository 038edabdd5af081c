import { describe, it, expect, beforeAll, afterAll, jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { IdentityTestRows } from '@tessera/identity-testing';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { identityKernelOf } from '../../support/identity-kernel.js';
import {
  CLIENT_ID,
  familyRow,
  seedDevice,
  seedServiceCredential,
  type SeededDevice,
} from './device-bearer.fixtures.js';

/**
 * Device access tokens as bearers (identity-http §2.1, §3, §4.1 routes 1, 21, 23; identity-model
 * §1, §5.5) over HTTP against the demo app and the real database: families are seeded through the
 * store port with real tokens, then used the way the `tessera` CLI uses them.
 */
describe('device access tokens as bearer credentials', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let organizationId: string;
  let otherOrganizationId: string;
  let device: SeededDevice;
  const http = () => request(app.getHttpServer());
  const rows = () => new IdentityTestRows(app.get(MikroORM).em.fork());
  const get = (path: string, token: string) => http().get(path).set('authorization', `Bearer ${token}`);
  const outcome = (res: request.Response) => ({
    status: res.status,
    code: res.body?.error?.code as string | undefined,
  });
  const publish = (org: string, token: string, name: string) =>
    http().post(`/orgs/${org}/packages`).set('authorization', `Bearer ${token}`).send({ name });

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot({ databaseUrl: database.url })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    organizationId = await rows().organization({ at: new Date() });
    otherOrganizationId = await rows().organization({ at: new Date() });
    device = await seedDevice(app, organizationId);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers /me with the family’s user and assurance device_token', async () => {
    const res = await get('/identity/v1/me', device.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: device.userId, displayName: 'Seeded User', assuranceLevel: 'device_token' });
  });

  it('lists exactly its organization with role device (route 21) and reads only that one (route 23)', async () => {
    const listed = await get('/identity/v1/organizations', device.accessToken);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { id: organizationId, name: 'Seeded Organization', slug: expect.any(String), role: 'device' },
    ]);
    const own = await get(`/identity/v1/organizations/${organizationId}`, device.accessToken);
    expect(own.status).toBe(200);
    expect(own.body).toEqual(listed.body[0]);
    expect(outcome(await get(`/identity/v1/organizations/${otherOrganizationId}`, device.accessToken))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });

  it('needs identity.profile for /me and identity.organizations for routes 21 and 23 (else 404)', async () => {
    const narrow = await seedDevice(app, organizationId, { scopes: ['package.publish'] });
    for (const path of [
      '/identity/v1/me',
      '/identity/v1/organizations',
      `/identity/v1/organizations/${organizationId}`,
    ])
      expect(outcome(await get(path, narrow.accessToken))).toEqual({ status: 404, code: 'not_found' });
  });

  it('is refused on identity routes whose caller classes do not list DEV', async () => {
    for (const res of [
      await get('/identity/v1/sessions', device.accessToken),
      await get('/identity/v1/passkeys', device.accessToken),
      await get(`/identity/v1/organizations/${organizationId}/memberships`, device.accessToken),
      await get(`/identity/v1/organizations/${organizationId}/audit-events`, device.accessToken),
      await http().post('/identity/v1/logout').set('authorization', `Bearer ${device.accessToken}`),
    ]) {
      expect(outcome(res)).toEqual({ status: 401, code: 'authentication_required' });
    }
  });

  it('publishes through @RequireCapability(package.publish) with that scope, only in its organization, and not without it', async () => {
    const published = await publish(organizationId, device.accessToken, 'from-cli');
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ organizationId, name: 'from-cli', publishedBy: `device:${device.userId}` });
    expect((await publish(otherOrganizationId, device.accessToken, 'elsewhere')).status).toBe(404);
    const profileOnly = await seedDevice(app, organizationId, { scopes: ['identity.profile'] });
    const refused = await publish(organizationId, profileOnly.accessToken, 'no-scope');
    expect(outcome(refused)).toEqual({ status: 404, code: 'not_found' });
    // Reading the organization's packages needs only an identity in it.
    expect((await get(`/orgs/${organizationId}/packages`, device.accessToken)).status).toBe(200);
  });

  it('refuses an expired, revoked, unknown or tampered token, and a refresh token, with 401 invalid_credentials', async () => {
    const expired = await seedDevice(app, organizationId, { at: new Date(Date.now() - 20 * 60_000) });
    const revoked = await seedDevice(app, organizationId);
    const kernel = identityKernelOf(app);
    const revocation = await kernel.store.revokeDeviceTokenFamily({
      family: { familyId: revoked.familyId },
      clientId: CLIENT_ID,
      reason: 'client_revocation',
      at: new Date(),
      audit: (family) =>
        kernel.audit.event(undefined, new Date(), {
          actor: { type: 'system' },
          action: 'device_token.revoked',
          organizationId: family.organizationId,
          target: { type: 'device_grant', id: family.deviceGrantId },
          reasonCode: 'client_revocation',
        }),
    });
    expect(revocation.ok).toBe(true);
    const [selector, secret] = device.accessToken.split('.') as [string, string];
    const flipped = `${secret.slice(0, 10)}${secret[10] === 'A' ? 'B' : 'A'}${secret.slice(11)}`;
    const unknownSelector = `${selector.slice(0, -4)}${selector.endsWith('aaaa') ? 'bbbb' : 'aaaa'}`;
    for (const token of [
      expired.accessToken,
      revoked.accessToken,
      `${selector}.${flipped}`,
      `${unknownSelector}.${secret}`,
      device.refreshToken,
    ]) {
      expect(outcome(await get('/identity/v1/me', token))).toEqual({ status: 401, code: 'invalid_credentials' });
      expect(outcome(await publish(organizationId, token, 'nope'))).toEqual({
        status: 401,
        code: 'invalid_credentials',
      });
    }
    // The valid token of the family is untouched by those attempts.
    expect((await get('/identity/v1/me', device.accessToken)).status).toBe(200);
  });

  it('still resolves a bearer that is a service credential (tried after the device token)', async () => {
    const ci = await seedServiceCredential(app, organizationId, ['package.publish']);
    const published = await publish(organizationId, ci.token, 'from-ci');
    expect(published.status).toBe(201);
    expect(published.body.publishedBy).toBe(`service:${ci.identityId}`);
    expect(outcome(await get('/identity/v1/me', ci.token))).toEqual({ status: 401, code: 'authentication_required' });
  });

  describe('membership drift revokes the family at access-token use', () => {
    const drifts: [string, (seeded: SeededDevice) => Promise<unknown>][] = [
      [
        'member removed',
        (seeded) =>
          rows().sql(
            `update tessera_identity.memberships set state = 'removed', removed_at = now(), version = version + 1 where id = ?`,
            [seeded.membershipId],
          ),
      ],
      [
        'role changed',
        (seeded) =>
          rows().sql(`update tessera_identity.memberships set role = 'viewer', version = version + 1 where id = ?`, [
            seeded.membershipId,
          ]),
      ],
      [
        'organization deleted',
        (seeded) =>
          rows().sql(
            `update tessera_identity.organizations set state = 'deleted', deleted_at = now(), version = version + 1 where id = ?`,
            [seeded.organizationId],
          ),
      ],
      [
        'user suspended',
        (seeded) =>
          rows().sql(`update tessera_identity.users set state = 'suspended', version = version + 1 where id = ?`, [
            seeded.userId,
          ]),
      ],
    ];

    it.each(drifts)('%s → 401 and the family revoked in the database', async (_name, drift) => {
      const orgId = await rows().organization({ at: new Date() });
      const seeded = await seedDevice(app, orgId);
      expect((await get('/identity/v1/me', seeded.accessToken)).status).toBe(200);
      await drift(seeded);
      expect(outcome(await get('/identity/v1/me', seeded.accessToken))).toEqual({
        status: 401,
        code: 'invalid_credentials',
      });
      expect(await familyRow(app, seeded.familyId)).toEqual({
        state: 'revoked',
        reason: 'membership_authorization_changed',
        activeAccessTokens: 0,
      });
      const audits = await rows().count(
        'audit_events',
        `action = 'device_token.revoked' and reason_code = 'membership_authorization_changed' and organization_id = ?`,
        [orgId],
      );
      expect(audits).toBe(1);
      // Revoked for good: the next use is refused without a second revocation.
      expect((await publish(orgId, seeded.accessToken, 'after-drift')).status).toBe(401);
      expect(
        await rows().count('audit_events', `action = 'device_token.revoked' and organization_id = ?`, [orgId]),
      ).toBe(1);
    });
  });

  it('revokes a drifted family once when several requests race: all 401, one revocation audit', async () => {
    const orgId = await rows().organization({ at: new Date() });
    const seeded = await seedDevice(app, orgId);
    await rows().sql(`update tessera_identity.memberships set role = 'viewer', version = version + 1 where id = ?`, [
      seeded.membershipId,
    ]);
    const answers = await Promise.all(Array.from({ length: 8 }, () => get('/identity/v1/me', seeded.accessToken)));
    expect(answers.map(outcome)).toEqual(answers.map(() => ({ status: 401, code: 'invalid_credentials' })));
    expect((await familyRow(app, seeded.familyId)).state).toBe('revoked');
    expect(await rows().count('audit_events', `action = 'device_token.revoked' and organization_id = ?`, [orgId])).toBe(
      1,
    );
  });

  it('refuses a device bearer together with a session cookie (401 invalid_credentials)', async () => {
    const res = await get('/identity/v1/me', device.accessToken).set('cookie', '__Host-tessera_session=x.y');
    expect(outcome(res)).toEqual({ status: 401, code: 'invalid_credentials' });
  });

  it('answers 503 on a store outage without trying the service credential kind', async () => {
    const store = identityKernelOf(app).store;
    const device_ = jest.spyOn(store, 'findDeviceAccessGrant').mockRejectedValueOnce(new Error('connection lost'));
    const service = jest.spyOn(store, 'findServiceCredentialGrant');
    expect(outcome(await get('/identity/v1/me', device.accessToken))).toEqual({
      status: 503,
      code: 'service_unavailable',
    });
    expect(service).not.toHaveBeenCalled();
    device_.mockRestore();
    service.mockRestore();
    expect((await get('/identity/v1/me', device.accessToken)).status).toBe(200);
  });
});
