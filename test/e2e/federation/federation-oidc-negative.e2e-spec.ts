import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { tenantRows } from '../../support/tenant-seed.js';
import {
  startFakeOidcIdp,
  type FakeAuthorizationShape,
  type FakeIdTokenShape,
  type FakeOidcIdp,
} from '../../support/federation/oidc-fake-idp.js';
import { bootFederationApp, callback, seedTenant, setCookie, SUCCESS_PATH } from './federation.fixtures.js';

/** What a refused callback must not have created. */
interface Created {
  readonly users: number;
  readonly sessions: number;
  readonly links: number;
}

/** One browser's start and the IdP's redirect back. */
interface Started {
  readonly stateCookie: string;
  readonly callbackUrl: URL;
}

/**
 * The OIDC negative table of issue 14 over HTTP: an owner registers a hand-made IdP through the
 * management route, then each case runs start → IdP → callback through the real routes and database
 * and must answer 401 `invalid_credentials` without creating a user, a link or an OIDC session.
 */
describe('OIDC negative table over HTTP with a hand-made IdP (identity-http §6, issue 14)', () => {
  let identity: IdentityTestApp;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  let idp: FakeOidcIdp;
  let providerId: string;
  let sequence = 0;

  beforeAll(async () => {
    identity = await bootFederationApp();
    tenant = await seedTenant(identity);
  });
  afterAll(async () => {
    await identity.close();
  });
  beforeEach(async () => {
    sequence += 1;
    providerId = `neg-idp-${sequence}`;
    idp = await startFakeOidcIdp({ now: () => identity.clock.now(), clientId: `neg-rp-${sequence}` });
    const registered = await post(
      identity,
      `/identity/v1/organizations/${tenant.organizationId}/federation/providers`,
      tenant.owner.session,
    ).send({
      providerId,
      protocol: 'oidc',
      displayName: `Negative IdP ${sequence}`,
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      jit: true,
    });
    expect(registered.status).toBe(201);
  });
  afterEach(async () => {
    await idp.close();
  });

  /** The ID token's clock: the app's frozen clock, in seconds. */
  const now = (): number => Math.floor(identity.clock.now().getTime() / 1000);

  /** A subject never seen before: were a case accepted, JIT would create a user for it. */
  const freshSubject = (): string => `subject-${sequence}-${Math.random().toString(36).slice(2, 10)}`;

  async function created(): Promise<Created> {
    const [row] = await tenantRows(identity).sql(
      `select (select count(*) from tessera_identity.users) as users,
              (select count(*) from tessera_identity.sessions where authentication_method = 'oidc') as sessions,
              (select count(*) from tessera_identity.external_identities) as links`,
      [],
    );
    return { users: Number(row!['users']), sessions: Number(row!['sessions']), links: Number(row!['links']) };
  }

  /** GET start as a new browser (302 + state cookie), then the IdP's authorization endpoint. */
  async function startAndAuthorize(authorization: FakeAuthorizationShape = {}): Promise<Started> {
    const start = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/${providerId}/start`,
    );
    expect(start.status).toBe(302);
    const stateCookie = setCookie(start, '__Host-tessera_oidc_state');
    expect(stateCookie).toMatch(/^__Host-tessera_oidc_state=[A-Za-z0-9_-]{43}$/);
    idp.nextAuthorization(authorization);
    const callbackUrl = await idp.authorize(start.headers['location'] as string);
    return { stateCookie: stateCookie!, callbackUrl };
  }

  function complete(started: Started, url: URL = started.callbackUrl, cookie = started.stateCookie) {
    return callback(identity, `${url.pathname}${url.search}`, [cookie]);
  }

  function expectInvalidCredentials(res: Response): void {
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.objectContaining({ code: 'invalid_credentials' }) });
    expect(res.text).not.toContain(idp.clientSecret);
    expect(res.headers['set-cookie'] ?? []).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^__Host-tessera_session=[^;]/)]),
    );
  }

  /**
   * The ID-token cases: the IdP issues `shape` (for a fresh subject), the code exchange happens
   * exactly once, and the callback is refused without creating anything.
   */
  async function refusedIdToken(shape: FakeIdTokenShape): Promise<void> {
    const before = await created();
    idp.nextIdToken({ ...shape, claims: { sub: freshSubject(), ...shape.claims } });
    const started = await startAndAuthorize();
    const tokenCalls = idp.counts.token;
    expectInvalidCredentials(await complete(started));
    expect(idp.counts.token).toBe(tokenCalls + 1);
    expect(await created()).toEqual(before);
  }

  /** A callback refused on its query, before any code exchange. */
  async function refusedBeforeExchange(
    authorization: FakeAuthorizationShape,
    inspect: (url: URL) => void = () => undefined,
  ): Promise<void> {
    const before = await created();
    idp.nextIdToken({ claims: { sub: freshSubject() } });
    const started = await startAndAuthorize(authorization);
    inspect(started.callbackUrl);
    const tokenCalls = idp.counts.token;
    expectInvalidCredentials(await complete(started));
    expect(idp.counts.token).toBe(tokenCalls);
    expect(await created()).toEqual(before);
  }

  /** A successful sign-in of a fresh subject (the positive control and the set-up of some cases). */
  async function signIn(): Promise<{ started: Started; res: Response }> {
    idp.nextIdToken({ claims: { sub: freshSubject() } });
    const started = await startAndAuthorize();
    const res = await complete(started);
    expect(res.status).toBe(303);
    return { started, res };
  }

  it('positive control: a well-formed ID token signs a new subject in (303, one user, link and session)', async () => {
    const before = await created();
    const { res } = await signIn();
    expect(res.headers['location']).toBe(`http://localhost:3000${SUCCESS_PATH}`);
    expect(setCookie(res, '__Host-tessera_session')).toBeDefined();
    expect(await created()).toEqual({
      users: before.users + 1,
      sessions: before.sessions + 1,
      links: before.links + 1,
    });
  });

  it('refuses an ID token from another issuer (mix-up)', async () => {
    await refusedIdToken({ claims: { iss: 'http://127.0.0.1:1' } });
  });

  it('refuses an ID token for another audience', async () => {
    await refusedIdToken({ claims: { aud: 'another-client' } });
  });

  it('refuses several audiences without azp', async () => {
    await refusedIdToken({ claims: { aud: [idp.clientId, 'another-client'] } });
  });

  it('refuses a nonce that is not the transaction nonce', async () => {
    await refusedIdToken({ claims: { nonce: 'a-nonce-of-another-transaction' } });
  });

  it('refuses an unsigned ID token (alg: none)', async () => {
    await refusedIdToken({ alg: 'none' });
  });

  it('refuses an HS256 ID token signed with the client secret as key', async () => {
    await refusedIdToken({ alg: 'HS256' });
  });

  it('refuses an expired ID token', async () => {
    await refusedIdToken({ claims: { iat: now() - 600, exp: now() - 60 } });
  });

  it('refuses an ID token whose lifetime exceeds 24 hours', async () => {
    await refusedIdToken({ claims: { iat: now(), exp: now() + 86_401 } });
  });

  it('refuses an unknown kid after exactly one forced JWKS refresh', async () => {
    await signIn();
    const jwksFetches = idp.counts.jwks;
    await refusedIdToken({ key: 'unpublished' });
    expect(idp.counts.jwks).toBe(jwksFetches + 1);
  });

  it('refuses an ID token with a repeated claim', async () => {
    await refusedIdToken({ payloadJson: (json) => json.replace('{', '{"sub":"attacker",') });
  });

  it('refuses a callback without the RFC 9207 iss parameter when the provider advertises it', async () => {
    expect(idp.metadata['authorization_response_iss_parameter_supported']).toBe(true);
    await refusedBeforeExchange({ iss: null });
  });

  it('refuses a callback whose RFC 9207 iss parameter names another issuer', async () => {
    await refusedBeforeExchange({ iss: 'http://127.0.0.1:1' });
  });

  it('answers an IdP error response (error=access_denied) with 401', async () => {
    await refusedBeforeExchange({ error: 'access_denied' }, (url) => {
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.has('code')).toBe(false);
    });
  });

  it('consumes the state once: a second callback with the same state is 401', async () => {
    const { started } = await signIn();
    const after = await created();
    const tokenCalls = idp.counts.token;
    expectInvalidCredentials(await complete(started));
    expect(idp.counts.token).toBe(tokenCalls);
    expect(await created()).toEqual(after);
  });

  it("refuses a state cookie from another browser (another start's cookie)", async () => {
    const before = await created();
    idp.nextIdToken({ claims: { sub: freshSubject() } });
    const victim = await startAndAuthorize();
    const attacker = await startAndAuthorize();
    expect(attacker.stateCookie).not.toBe(victim.stateCookie);
    const tokenCalls = idp.counts.token;
    expectInvalidCredentials(await complete(victim, victim.callbackUrl, attacker.stateCookie));
    expect(idp.counts.token).toBe(tokenCalls);
    expect(await created()).toEqual(before);
  });

  it('refuses a replayed code (the token endpoint answers invalid_grant)', async () => {
    const first = await signIn();
    const redeemed = first.started.callbackUrl.searchParams.get('code')!;
    const after = await created();
    idp.nextIdToken({ claims: { sub: freshSubject() } });
    const second = await startAndAuthorize();
    const replay = new URL(second.callbackUrl);
    replay.searchParams.set('code', redeemed);
    const tokenCalls = idp.counts.token;
    expectInvalidCredentials(await complete(second, replay));
    expect(idp.counts.token).toBe(tokenCalls + 1);
    expect(await created()).toEqual(after);
  });

  it('answers 503 service_unavailable when the token endpoint fails with 500', async () => {
    const before = await created();
    const started = await startAndAuthorize();
    idp.nextTokenResponse(500, { error: 'server_error' });
    const res = await complete(started);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: expect.objectContaining({ code: 'service_unavailable' }) });
    expect(res.text).not.toContain('server_error');
    expect(await created()).toEqual(before);
  });
});
