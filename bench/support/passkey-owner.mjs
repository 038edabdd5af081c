// The first owner of the identity benchmarks' fresh databases, over HTTP: bootstrap (a restricted
// session), the owner's passkey registered with the software authenticator, and a passkey sign-in
// for a full session (bench/passkey, bench/device).
import { SoftwareAuthenticator } from '@tessera/identity-testing/webauthn';
import { cookieOf, expectStatus, ORIGIN, request } from './bench-http.mjs';

/** The session cookie and CSRF token a bootstrap, enrollment or sign-in response carries. */
export const sessionOf = (res) => ({ cookie: cookieOf(res, '__Host-tessera_session'), csrfToken: res.json.csrfToken });

/** Registers a passkey of `authenticator` on `session` (route registration/start + finish). */
export async function registerPasskey(base, session, authenticator, name) {
  const auth = { cookies: [session.cookie], csrfToken: session.csrfToken };
  const start = expectStatus(
    await request(base, 'POST', '/identity/v1/passkeys/registration/start', auth),
    200,
    'registration start',
  );
  const credential = authenticator.createCredential(start.json.publicKey, { origin: ORIGIN });
  const finish = await request(base, 'POST', '/identity/v1/passkeys/registration/finish', {
    body: { ceremonyId: start.json.ceremonyId, credentialName: name, credential },
    cookies: [session.cookie, cookieOf(start, '__Host-tessera_ceremony')],
    csrfToken: session.csrfToken,
  });
  return expectStatus(finish, 200, `registration finish (${name})`);
}

/** Bootstraps the owner of organization `bench` with the pending bootstrap `secret`; the raw 201 response. */
export async function bootstrapOwner(base, secret) {
  const bootstrap = await request(base, 'POST', '/identity/v1/bootstrap', {
    body: {
      secret,
      displayName: 'Bench Owner',
      primaryEmail: 'owner@bench.example',
      organizationName: 'Bench',
      organizationSlug: 'bench',
    },
  });
  return expectStatus(bootstrap, 201, 'bootstrap');
}

/**
 * The bootstrapped owner with a full session: bootstrap, a passkey, a username-free passkey sign-in.
 * Resolves with `{ userId, organizationId, session: { cookie, csrfToken } }`.
 */
export async function passkeyOwner(base, secret) {
  const bootstrap = await bootstrapOwner(base, secret);
  const authenticator = new SoftwareAuthenticator();
  await registerPasskey(base, sessionOf(bootstrap), authenticator, 'Owner device');
  const start = expectStatus(
    await request(base, 'POST', '/identity/v1/passkeys/authentication/start'),
    200,
    'authentication start',
  );
  const finish = await request(base, 'POST', '/identity/v1/passkeys/authentication/finish', {
    body: {
      ceremonyId: start.json.ceremonyId,
      credential: authenticator.getAssertion(start.json.publicKey, { origin: ORIGIN }),
    },
    cookies: [cookieOf(start, '__Host-tessera_ceremony')],
  });
  return {
    userId: bootstrap.json.userId,
    organizationId: bootstrap.json.organization.id,
    session: sessionOf(expectStatus(finish, 200, 'authentication finish')),
  };
}
