import { describe, it, expect, beforeAll, afterAll, jest } from '@jest/globals';
import request from 'supertest';
import { formatTimestamp } from '@tessera/identity';
import { seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import {
  bearer,
  bootServiceApp,
  bootstrapOwner,
  codeOf,
  createServiceIdentity,
  envelopeOf,
  kernelOf,
  read,
  rowsOf,
  servicePath,
  type Owner,
} from './service-identity.fixtures.js';

/**
 * Bearer resolution of service credentials (identity-http §2.1) on host Nest routes guarded by the
 * identity decorators and on identity routes. One app: the cases only read, except where noted.
 */
describe('service credentials as bearer tokens', () => {
  let identity: IdentityTestApp;
  let owner: Owner;
  let publisher: { identityId: string; credentialId: string; token: string };
  let reader: { identityId: string; token: string };
  beforeAll(async () => {
    identity = await bootServiceApp();
    owner = await bootstrapOwner(identity);
    publisher = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'publisher',
      capabilities: ['package.publish', 'content.read'],
    });
    reader = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'reader',
      capabilities: ['package.publish'],
    });
  });
  afterAll(async () => identity?.close());

  const packages = (org: string) => `/host/orgs/${org}/packages`;
  const outcome = (res: request.Response) => ({ status: res.status, code: codeOf(res) });

  it('acts as a service principal of its organization on a host route guarded by @RequireCapability, without CSRF', async () => {
    const res = await bearer(identity, 'post', packages(owner.organizationId), publisher.token);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      kind: 'service',
      id: publisher.identityId,
      assurance: 'service_credential',
      organizationId: owner.organizationId,
    });
    const whoami = await bearer(identity, 'get', '/host/whoami', publisher.token);
    expect(whoami.body).toEqual({ kind: 'service', capabilities: ['content.read', 'package.publish'] });
  });

  it('grants exactly the credential scopes: a capability it lacks is 404, also under stacked decorators (regression: only the top one was enforced)', async () => {
    const contentOnly = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'content-only',
      capabilities: ['content.read'],
    });
    // `@RequireOrganization() @RequireCapability('package.publish')`: the organization passes, the capability does not.
    expect(outcome(await bearer(identity, 'post', packages(owner.organizationId), contentOnly.token))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(outcome(await bearer(identity, 'get', '/host/whoami', reader.token))).toEqual({
      status: 404,
      code: 'not_found',
    });
    const reports = await bearer(identity, 'get', `/host/orgs/${owner.organizationId}/reports`, publisher.token);
    expect(outcome(reports)).toEqual({ status: 404, code: 'not_found' });
  });

  it('cannot act in another organization: the answer equals an unknown organization’s', async () => {
    const other = await rowsOf(identity).organization({ at: identity.clock.now() });
    const unknown = envelopeOf(
      await bearer(identity, 'post', packages('01900000-0000-7000-8000-0000000000ab'), publisher.token),
    );
    expect(unknown).toEqual({
      status: 404,
      error: { code: 'not_found', message: 'The requested identity resource was not found', retryable: false },
    });
    expect(envelopeOf(await bearer(identity, 'post', packages(other), publisher.token))).toEqual(unknown);
  });

  it('has no organization scope on a route that selects none, like a user: @RequireOrganization() is 404 (regression: a service defaulted to its own organization)', async () => {
    const scoped = await bearer(identity, 'get', `/host/orgs/${owner.organizationId}/scope`, publisher.token);
    expect(scoped.status).toBe(200);
    expect(scoped.body).toEqual({ organizationId: owner.organizationId });
    const unscopedService = await bearer(identity, 'get', '/host/scope', publisher.token);
    const unscopedUser = await read(identity, '/host/scope', owner.session);
    expect(envelopeOf(unscopedService)).toEqual(envelopeOf(unscopedUser));
    expect(outcome(unscopedService)).toEqual({ status: 404, code: 'not_found' });
    expect((await read(identity, `/host/orgs/${owner.organizationId}/scope`, owner.session)).status).toBe(200);
  });

  it('is refused on identity routes, which admit no service caller (route 1, routes 39–45)', async () => {
    for (const res of [
      await bearer(identity, 'get', '/identity/v1/me', publisher.token),
      await bearer(identity, 'get', servicePath(owner.organizationId), publisher.token),
      await bearer(
        identity,
        'get',
        servicePath(owner.organizationId, publisher.identityId, 'credentials'),
        publisher.token,
      ),
      await bearer(identity, 'post', servicePath(owner.organizationId), publisher.token).send({
        name: 'x',
        capabilities: ['package.publish'],
      }),
      await bearer(identity, 'get', `/identity/v1/organizations/${owner.organizationId}/audit-events`, publisher.token),
    ]) {
      expect(outcome(res)).toEqual({ status: 401, code: 'authentication_required' });
    }
  });

  it('refuses a session cookie together with a bearer, and every malformed or unknown bearer, with 401 invalid_credentials', async () => {
    const session = await seedPasskeySession(identity);
    const [prefix, secret] = publisher.token.split('.') as [string, string];
    const flipped = `${prefix}.${secret.slice(0, -2)}${secret.endsWith('AA') ? 'BA' : 'AA'}`;
    const headers: (string | string[])[] = [
      'Bearer',
      `Bearer  ${publisher.token}`,
      `Bearer ${publisher.token} extra`,
      `Bearer ${prefix}`,
      `Bearer ${publisher.token}.x`,
      'Bearer short.token',
      `Bearer ${'a'.repeat(300)}.${'b'.repeat(212)}`,
      `Bearer ${prefix}.${secret}=`,
      `Bearer 01900000-0000-7000-8000-0000000000ff.${secret}`,
      `Bearer ${flipped}`,
      `Bearer ${prefix.toUpperCase()}.${secret}`,
      // Two headers (Node sends one line per array item; the middleware reads the raw headers).
      [`Bearer ${publisher.token}`, `Bearer ${publisher.token}`],
    ];
    for (const [header, paths] of [
      ...headers.map((h) => [h, [packages(owner.organizationId), '/identity/v1/me']] as const),
      [`Basic ${publisher.token}`, ['/identity/v1/me']] as const,
    ]) {
      for (const path of paths) {
        const res = await request(identity.app.getHttpServer())
          .post(path)
          .set('authorization', header as string);
        expect([header, outcome(res)]).toEqual([header, { status: 401, code: 'invalid_credentials' }]);
      }
    }
    // On a host route another scheme is the host's (identity-http §2.1): identity answers as to an anonymous caller.
    const basic = await request(identity.app.getHttpServer())
      .post(packages(owner.organizationId))
      .set('authorization', `Basic ${publisher.token}`);
    const anonymous = await request(identity.app.getHttpServer()).post(packages(owner.organizationId));
    expect(outcome(basic)).toEqual(outcome(anonymous));
    expect(outcome(basic).code).not.toBe('invalid_credentials');
    const both = await bearer(identity, 'post', packages(owner.organizationId), publisher.token).set(
      'cookie',
      session.cookie,
    );
    expect(outcome(both)).toEqual({ status: 401, code: 'invalid_credentials' });
    expect(
      outcome(await bearer(identity, 'get', '/identity/v1/me', publisher.token).set('cookie', session.cookie)),
    ).toEqual({
      status: 401,
      code: 'invalid_credentials',
    });
  });

  it('writes lastUsedAt at most once per touch interval', async () => {
    const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'touch',
      capabilities: ['content.read'],
    });
    const row = async () =>
      (
        await rowsOf(identity).sql(
          'select last_used_at, version from tessera_identity.service_credentials where id = ?',
          [ci.credentialId],
        )
      )[0]!;
    await bearer(identity, 'get', '/host/whoami', ci.token);
    const touched = await row();
    expect(touched['version']).toBe(1);
    identity.clock.advance({ seconds: 30 });
    await bearer(identity, 'get', '/host/whoami', ci.token);
    expect((await row())['version']).toBe(1);
    identity.clock.advance({ seconds: 31 });
    await bearer(identity, 'get', '/host/whoami', ci.token);
    expect((await row())['version']).toBe(2);
    const list = await read(identity, servicePath(owner.organizationId, ci.identityId, 'credentials'), owner.session);
    expect(list.body[0].lastUsedAt).toBe(formatTimestamp(identity.clock.now()));
  });

  it('answers 503 when the store cannot be read, and 401 once the organization is no longer active', async () => {
    const store = kernelOf(identity).store;
    const spy = jest.spyOn(store, 'findServiceCredentialGrant').mockRejectedValueOnce(new Error('connection lost'));
    const outage = await bearer(identity, 'get', '/host/whoami', publisher.token);
    expect(outcome(outage)).toEqual({ status: 503, code: 'service_unavailable' });
    spy.mockRestore();
    expect((await bearer(identity, 'get', '/host/whoami', publisher.token)).status).toBe(200);
    await rowsOf(identity).sql(`update tessera_identity.organizations set state = 'suspended' where id = ?`, [
      owner.organizationId,
    ]);
    expect(outcome(await bearer(identity, 'get', '/host/whoami', publisher.token))).toEqual({
      status: 401,
      code: 'invalid_credentials',
    });
  });
});
