import request from 'supertest';
import type { Response } from 'supertest';
import { SoftwareAuthenticator, type AssertionOverrides, type RegistrationOverrides } from '@tessera/identity-testing';
import { sessionCookieOf, TEST_ORIGIN, type IdentityTestApp } from './identity-app.js';

/** A browser-like session: the session cookie and the CSRF token from the session-created body. */
export interface TestSession {
  readonly userId: string;
  readonly sessionId: string;
  readonly cookie: string;
  readonly csrfToken: string;
}

/** The ceremony cookie (`__Host-tessera_ceremony=<value>`) a start response set. */
export function ceremonyCookieOf(res: Response): string {
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const cookie = cookies.find(
    (c) => c.startsWith('__Host-tessera_ceremony=') && !c.startsWith('__Host-tessera_ceremony=;'),
  );
  if (cookie === undefined) throw new Error(`no ceremony cookie (status ${res.status})`);
  return cookie.split(';')[0]!;
}

/** The session a session-created response granted. */
export function sessionOf(res: Response): TestSession {
  const token = sessionCookieOf(res.headers);
  if (token === undefined) throw new Error(`no session cookie (status ${res.status}): ${res.text}`);
  return {
    userId: res.body.userId,
    sessionId: res.body.sessionId,
    cookie: `__Host-tessera_session=${token}`,
    csrfToken: res.body.csrfToken,
  };
}

/** An unsafe request carrying the session cookie (plus `extraCookies`), `Origin` and `X-CSRF-Token`. */
export function post(identity: IdentityTestApp, path: string, session?: TestSession, extraCookies: string[] = []) {
  const cookies = [...(session ? [session.cookie] : []), ...extraCookies];
  let req = request(identity.app.getHttpServer()).post(path).set('origin', TEST_ORIGIN);
  if (cookies.length > 0) req = req.set('cookie', cookies.join('; '));
  if (session) req = req.set('x-csrf-token', session.csrfToken);
  return req;
}

/** Bootstrap the owner (route 46): a restricted bootstrap session. */
export async function bootstrapOwner(identity: IdentityTestApp, email = 'ada@example.com'): Promise<TestSession> {
  const res = await post(identity, '/identity/v1/bootstrap').send({
    secret: identity.bootstrapSecret,
    displayName: 'Ada Lovelace',
    primaryEmail: email,
    organizationName: 'Analytical Engines',
    organizationSlug: 'engines',
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${res.text}`);
  return sessionOf(res);
}

/** Registration start (route 2). */
export async function registrationStart(identity: IdentityTestApp, session: TestSession) {
  const res = await post(identity, '/identity/v1/passkeys/registration/start', session);
  return { res, ceremony: res.status === 200 ? ceremonyCookieOf(res) : '' };
}

/** Registration start + authenticator + finish (routes 2–3); returns the finish response. */
export async function registerPasskey(
  identity: IdentityTestApp,
  session: TestSession,
  authenticator: SoftwareAuthenticator,
  options: { overrides?: RegistrationOverrides; name?: string; origin?: string } = {},
): Promise<Response> {
  const start = await registrationStart(identity, session);
  if (start.res.status !== 200) return start.res;
  const credential = authenticator.createCredential(start.res.body.publicKey, {
    origin: options.origin ?? TEST_ORIGIN,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  return post(identity, '/identity/v1/passkeys/registration/finish', session, [start.ceremony]).send({
    ceremonyId: start.res.body.ceremonyId,
    credentialName: options.name ?? 'Laptop',
    credential,
  });
}

/** A sign-in ceremony started (route 4). */
export async function signInStart(identity: IdentityTestApp, session?: TestSession) {
  const res = await post(identity, '/identity/v1/passkeys/authentication/start', session);
  return { res, ceremony: res.status === 200 ? ceremonyCookieOf(res) : '' };
}

/** Username-free sign-in (routes 4–5); returns the finish response. */
export async function signIn(
  identity: IdentityTestApp,
  authenticator: SoftwareAuthenticator,
  options: { overrides?: AssertionOverrides; session?: TestSession; credentialId?: string; origin?: string } = {},
): Promise<Response> {
  const start = await signInStart(identity, options.session);
  const assertion = authenticator.getAssertion(start.res.body.publicKey, {
    origin: options.origin ?? TEST_ORIGIN,
    ...(options.credentialId ? { credentialId: options.credentialId } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  return post(identity, '/identity/v1/passkeys/authentication/finish', options.session, [start.ceremony]).send({
    ceremonyId: start.res.body.ceremonyId,
    credential: assertion,
  });
}

/** Step-up (routes 6–7) for `session`; returns the finish response. */
export async function stepUp(
  identity: IdentityTestApp,
  session: TestSession,
  authenticator: SoftwareAuthenticator,
  overrides?: AssertionOverrides,
): Promise<Response> {
  const start = await post(identity, '/identity/v1/passkeys/step-up/start', session);
  if (start.status !== 200) return start;
  const assertion = authenticator.getAssertion(start.body.publicKey, {
    origin: TEST_ORIGIN,
    ...(overrides ? { overrides } : {}),
  });
  return post(identity, '/identity/v1/passkeys/step-up/finish', session, [ceremonyCookieOf(start)]).send({
    ceremonyId: start.body.ceremonyId,
    credential: assertion,
  });
}

/** Bootstrap + first passkey + sign-in: a full passkey session and its authenticator. */
export async function passkeyOwner(identity: IdentityTestApp) {
  const authenticator = new SoftwareAuthenticator();
  const restricted = await bootstrapOwner(identity);
  const registered = await registerPasskey(identity, restricted, authenticator);
  if (registered.status !== 200) throw new Error(`registration failed: ${registered.status} ${registered.text}`);
  const signedIn = await signIn(identity, authenticator);
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text}`);
  return {
    authenticator,
    session: sessionOf(signedIn),
    codes: registered.body.replacementRecoveryCodes as string[],
    passkeyId: registered.body.passkey.id as string,
  };
}
