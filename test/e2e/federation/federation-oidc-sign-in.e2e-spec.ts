import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { getAs, tenantRows } from '../../support/tenant-seed.js';
import {
  bootFederationApp,
  callback,
  federatedSessionOf,
  federatedSignIn,
  registerOidcProvider,
  seedTenant,
  setCookieLine,
  startOidcTestIdp,
  startSignIn,
  SUCCESS_PATH,
  type OidcTestIdp,
} from './federation.fixtures.js';

describe('OIDC federated sign-in over HTTP with a real OpenID Provider (identity-http §6)', () => {
  let identity: IdentityTestApp;
  let idp: OidcTestIdp;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;

  // One app, tenant and provider for the file: every test makes its own starts and subjects, and
  // counts rows as differences, so nothing carries over between tests.
  beforeAll(async () => {
    idp = await startOidcTestIdp();
    identity = await bootFederationApp();
    tenant = await seedTenant(identity);
    const registered = await registerOidcProvider(identity, idp, tenant);
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await identity?.close();
    await idp.close();
  });

  const countUsers = async () =>
    Number((await tenantRows(identity).sql('select count(*) as n from tessera_identity.users', []))[0]!['n']);

  it('starts with a 302 to the discovered authorization endpoint and a Lax state cookie', async () => {
    const start = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/acme-idp/start`,
    );
    expect(start.status).toBe(302);
    const location = new URL(start.headers['location'] as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('response_type')).toBe('code');
    expect(location.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = setCookieLine(start, '__Host-tessera_oidc_state')!;
    expect(cookie).toBe(
      `__Host-tessera_oidc_state=${location.searchParams.get('state')}; Max-Age=300; Path=/; Secure; HttpOnly; SameSite=Lax`,
    );
    expect(start.headers['cache-control']).toBe('no-store');
    expect(start.headers['pragma']).toBe('no-cache');
    expect(start.headers['referrer-policy']).toBe('no-referrer');
    expect(start.headers['x-content-type-options']).toBe('nosniff');
  });

  it('signs a new subject in with JIT: an active viewer without email, linked, audited, pinned to the tenant', async () => {
    idp.nextLogin('jit-subject-1');
    const started = await startSignIn(identity, idp, tenant.organizationId);
    const done = await callback(identity, started.callbackPath, [started.stateCookie]);
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe(`http://localhost:3000${SUCCESS_PATH}`);
    expect(setCookieLine(done, '__Host-tessera_csrf')).toMatch(
      /^__Host-tessera_csrf=[A-Za-z0-9_.-]+; Max-Age=300; Path=\/; Secure; SameSite=Lax$/,
    );
    expect(setCookieLine(done, '__Host-tessera_oidc_state')).toMatch(/^__Host-tessera_oidc_state=; Max-Age=0;/);
    const session = federatedSessionOf(done);
    const me = await getAs(identity, '/identity/v1/me', session);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ userId: expect.any(String), assuranceLevel: 'session' });
    const organizations = await getAs(identity, '/identity/v1/organizations', session);
    expect(organizations.status).toBe(200);
    expect(organizations.body).toHaveLength(1);
    expect(organizations.body[0].id ?? organizations.body[0].organization?.id).toBe(tenant.organizationId);
    const [row] = await tenantRows(identity).sql(
      `select m.role, u.state, u.primary_email, s.authentication_method, s.assurance
         from tessera_identity.sessions s join tessera_identity.users u on u.id = s.user_id
         join tessera_identity.memberships m on m.user_id = u.id where s.id = ?`,
      [session.sessionId],
    );
    expect(row).toMatchObject({
      role: 'viewer',
      state: 'active',
      primary_email: null,
      authentication_method: 'oidc',
      assurance: 'session',
    });
    const actions = (
      await tenantRows(identity).sql(
        'select action from tessera_identity.audit_events where organization_id = ? order by occurred_at, id',
        [tenant.organizationId],
      )
    ).map((event) => event['action']);
    expect(actions).toEqual(
      expect.arrayContaining(['user.created', 'membership.created', 'external_identity.linked', 'session.created']),
    );
  });

  it('signs the same subject in again as the same user, linking nothing new', async () => {
    const first = await federatedSignIn(identity, idp, tenant.organizationId, 'returning');
    const users = await countUsers();
    const second = await federatedSignIn(identity, idp, tenant.organizationId, 'returning');
    expect(await countUsers()).toBe(users);
    const me1 = await getAs(identity, '/identity/v1/me', first);
    const me2 = await getAs(identity, '/identity/v1/me', second);
    expect(me1.body.userId).toEqual(expect.any(String));
    expect(me2.body.userId).toBe(me1.body.userId);
  });

  it('refuses an unknown subject when JIT is off and creates nothing', async () => {
    await registerOidcProvider(identity, idp, tenant, { providerId: 'no-jit', jit: false });
    const users = await countUsers();
    idp.nextLogin('stranger');
    const started = await startSignIn(identity, idp, tenant.organizationId, 'no-jit');
    const done = await callback(identity, started.callbackPath, [started.stateCookie]);
    expect(done.status).toBe(401);
    expect(done.body.error.code).toBe('invalid_credentials');
    expect(await countUsers()).toBe(users);
  });

  it('consumes the state once: a replayed callback (same state and code) is 401', async () => {
    idp.nextLogin('replayer');
    const started = await startSignIn(identity, idp, tenant.organizationId);
    expect((await callback(identity, started.callbackPath, [started.stateCookie])).status).toBe(303);
    const again = await callback(identity, started.callbackPath, [started.stateCookie]);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_credentials');
  });

  it('refuses a state cookie from another browser without consuming the real one', async () => {
    idp.nextLogin('victim');
    const victim = await startSignIn(identity, idp, tenant.organizationId);
    idp.nextLogin('attacker');
    const attacker = await startSignIn(identity, idp, tenant.organizationId);
    expect((await callback(identity, victim.callbackPath, [attacker.stateCookie])).status).toBe(401);
    expect((await callback(identity, victim.callbackPath, [])).status).toBe(401);
    expect((await callback(identity, victim.callbackPath, [victim.stateCookie])).status).toBe(303);
  });

  it('answers an IdP error response with 401', async () => {
    idp.nextDenial();
    const started = await startSignIn(identity, idp, tenant.organizationId);
    expect(started.callbackPath).toContain('error=access_denied');
    const done = await callback(identity, started.callbackPath, [started.stateCookie]);
    expect(done.status).toBe(401);
    expect(done.body.error.code).toBe('invalid_credentials');
  });

  it('creates exactly one session from 20 concurrent callbacks with one state', async () => {
    idp.nextLogin('racer');
    const started = await startSignIn(identity, idp, tenant.organizationId);
    const oidcSessions = async () =>
      Number(
        (
          await tenantRows(identity).sql(
            "select count(*) as n from tessera_identity.sessions where authentication_method = 'oidc'",
            [],
          )
        )[0]!['n'],
      );
    const before = await oidcSessions();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => callback(identity, started.callbackPath, [started.stateCookie])),
    );
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(19);
    expect((await oidcSessions()) - before).toBe(1);
  });

  it('keeps a federated session out of every other organization (404)', async () => {
    const other = await seedTenant(identity);
    const session = await federatedSignIn(identity, idp, tenant.organizationId, 'pinned');
    for (const path of [
      `/identity/v1/organizations/${other.organizationId}`,
      `/identity/v1/organizations/${other.organizationId}/memberships`,
      `/identity/v1/organizations/${other.organizationId}/audit-events`,
      `/identity/v1/organizations/${other.organizationId}/federation/providers`,
    ]) {
      const res = await getAs(identity, path, session);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
  });

  it.each([
    ['an unknown provider', (org: string) => `/identity/v1/federation/${org}/nobody/start`, 404],
    ['an unknown tenant', () => '/identity/v1/federation/0190a0a0-0000-7000-8000-000000000000/acme-idp/start', 404],
    ['a malformed tenant', () => '/identity/v1/federation/not-a-uuid/acme-idp/start', 400],
    ['a malformed provider id', (org: string) => `/identity/v1/federation/${org}/Bad!Id/start`, 400],
    ['a query on start', (org: string) => `/identity/v1/federation/${org}/acme-idp/start?x=1`, 400],
  ])('answers start with %s: %s', async (_name, path, status) => {
    const res = await request(identity.app.getHttpServer()).get(path(tenant.organizationId));
    expect(res.status).toBe(status);
  });
});
