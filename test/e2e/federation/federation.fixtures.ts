import request from 'supertest';
import type { Response } from 'supertest';
import type { IdentityModuleOptions } from '@tessera/identity';
import { bootIdentityApp, sessionCookieOf, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { post, type TestSession } from '../../support/passkey-client.js';
import { seedMember, seedOrganization, type SeededMember } from '../../support/tenant-seed.js';
import { startOidcTestIdp, type OidcTestIdp } from '../../support/federation/oidc-idp.js';

/** Where a completed federated sign-in lands in the test apps. */
export const SUCCESS_PATH = '/signed-in';
export const CLIENT_ID = 'tessera-rp';
export const CLIENT_SECRET = 'rp-client-secret-0123456789';

/**
 * A federation test app: the test clock starts at the real time (the test IdP signs ID tokens with
 * the wall clock) and sign-ins land on {@link SUCCESS_PATH}.
 */
export function bootFederationApp(federation: IdentityModuleOptions['federation'] = {}): Promise<IdentityTestApp> {
  return bootIdentityApp({}, new Date().toISOString(), { federation: { successPath: SUCCESS_PATH, ...federation } });
}

/** An organization with an owner whose passkey is recent (STEP). */
export async function seedTenant(identity: IdentityTestApp): Promise<{ organizationId: string; owner: SeededMember }> {
  const organizationId = await seedOrganization(identity);
  return { organizationId, owner: await seedMember(identity, organizationId, 'owner') };
}

/** `http://localhost:3000/identity/v1/federation/{org}/{provider}/callback`. */
export function callbackUrl(organizationId: string, providerId: string): string {
  return `${TEST_ORIGIN}/identity/v1/federation/${organizationId}/${providerId}/callback`;
}

/** Registers an OIDC provider of `idp` through the management route as `owner`. */
export async function registerOidcProvider(
  identity: IdentityTestApp,
  idp: OidcTestIdp,
  tenant: { organizationId: string; owner: SeededMember },
  over: { providerId?: string; jit?: boolean; clientSecret?: string | null } = {},
): Promise<Response> {
  const providerId = over.providerId ?? 'acme-idp';
  const secret = over.clientSecret === undefined ? CLIENT_SECRET : over.clientSecret;
  idp.addClient({
    clientId: `${CLIENT_ID}-${providerId}`,
    ...(secret === null ? {} : { clientSecret: secret }),
    redirectUris: [callbackUrl(tenant.organizationId, providerId)],
  });
  return post(
    identity,
    `/identity/v1/organizations/${tenant.organizationId}/federation/providers`,
    tenant.owner.session,
  ).send({
    providerId,
    protocol: 'oidc',
    displayName: 'Acme IdP',
    issuer: idp.issuer,
    clientId: `${CLIENT_ID}-${providerId}`,
    ...(secret === null ? {} : { clientSecret: secret }),
    jit: over.jit ?? true,
  });
}

/** A browser's side of one federated sign-in: the state cookie and the IdP's redirect back. */
export interface StartedSignIn {
  readonly start: Response;
  /** `__Host-tessera_oidc_state=<selector>`. */
  readonly stateCookie: string;
  /** Path + query of the callback the IdP redirected to. */
  readonly callbackPath: string;
}

/** The `name=value` of cookie `name` a response set (not a clearing one). */
export function setCookie(res: Response, name: string): string | undefined {
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const found = cookies.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  return found?.split(';')[0];
}

/** The full `Set-Cookie` line of cookie `name`. */
export function setCookieLine(res: Response, name: string): string | undefined {
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  return cookies.find((c) => c.startsWith(`${name}=`));
}

/**
 * GET start (as `session`'s browser, or anonymous), then the IdP's redirects with its next queued
 * login: returns the state cookie and the callback path the IdP sent the browser to.
 */
export async function startSignIn(
  identity: IdentityTestApp,
  idp: OidcTestIdp,
  organizationId: string,
  providerId = 'acme-idp',
  session?: TestSession,
): Promise<StartedSignIn> {
  let req = request(identity.app.getHttpServer()).get(`/identity/v1/federation/${organizationId}/${providerId}/start`);
  if (session !== undefined) req = req.set('cookie', session.cookie);
  const start = await req;
  if (start.status !== 302) throw new Error(`start failed: ${start.status} ${start.text}`);
  const stateCookie = setCookie(start, '__Host-tessera_oidc_state');
  if (stateCookie === undefined) throw new Error('no state cookie');
  const back = await idp.authorize(start.headers['location'] as string);
  return { start, stateCookie, callbackPath: `${back.pathname}${back.search}` };
}

/** GET the callback with `cookies` (the state cookie, maybe a session cookie). */
export function callback(identity: IdentityTestApp, path: string, cookies: string[]) {
  const req = request(identity.app.getHttpServer()).get(path);
  return cookies.length === 0 ? req : req.set('cookie', cookies.join('; '));
}

/** The federated session a 303 callback answer granted (cookie + CSRF from `__Host-tessera_csrf`). */
export function federatedSessionOf(res: Response): TestSession & { userId: '' } {
  const token = sessionCookieOf(res.headers);
  const csrf = setCookie(res, '__Host-tessera_csrf');
  if (res.status !== 303 || token === undefined || csrf === undefined) {
    throw new Error(`no federated session: ${res.status} ${res.text}`);
  }
  return {
    userId: '',
    sessionId: token.split('.')[0]!,
    cookie: `__Host-tessera_session=${token}`,
    csrfToken: csrf.slice('__Host-tessera_csrf='.length),
  };
}

/** Start + IdP + callback for `subject`: the federated session. */
export async function federatedSignIn(
  identity: IdentityTestApp,
  idp: OidcTestIdp,
  organizationId: string,
  subject: string,
  providerId = 'acme-idp',
): Promise<TestSession> {
  idp.nextLogin(subject);
  const started = await startSignIn(identity, idp, organizationId, providerId);
  return federatedSessionOf(await callback(identity, started.callbackPath, [started.stateCookie]));
}

export { startOidcTestIdp, type OidcTestIdp };
