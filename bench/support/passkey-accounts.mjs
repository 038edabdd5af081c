// Accounts of the identity benchmarks' fresh databases, over HTTP (bench/passkey, bench/device): the
// first owner (bootstrap: a restricted session), invited members (enrollment: a restricted
// session), each one's passkey registered with the software authenticator, and passkey sign-ins
// for full sessions.
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

/** A username-free passkey sign-in with `authenticator`: the full session. */
export async function passkeySignIn(base, authenticator) {
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
  return sessionOf(expectStatus(finish, 200, 'authentication finish'));
}

/**
 * The bootstrapped owner with a full session: bootstrap, a passkey, a passkey sign-in. Resolves
 * with `{ userId, organizationId, session: { cookie, csrfToken } }`.
 */
export async function passkeyOwner(base, secret) {
  const bootstrap = await bootstrapOwner(base, secret);
  const authenticator = new SoftwareAuthenticator();
  await registerPasskey(base, sessionOf(bootstrap), authenticator, 'Owner device');
  return {
    userId: bootstrap.json.userId,
    organizationId: bootstrap.json.organization.id,
    session: await passkeySignIn(base, authenticator),
  };
}

/**
 * Member `n` of `owner`'s organization with `role` and a full session: invitation by the owner,
 * enrollment, a passkey, a passkey sign-in. Resolves with `{ session: { cookie, csrfToken } }`.
 */
export async function passkeyMember(base, owner, n, role) {
  const invitation = await request(base, 'POST', `/identity/v1/organizations/${owner.organizationId}/invitations`, {
    body: { email: `member${n}@bench.example`, role },
    cookies: [owner.session.cookie],
    csrfToken: owner.session.csrfToken,
  });
  expectStatus(invitation, 201, 'invitation');
  const enrolled = await request(base, 'POST', '/identity/v1/invitations/enroll', {
    body: { token: invitation.json.token, displayName: `Member ${n}` },
  });
  const authenticator = new SoftwareAuthenticator();
  await registerPasskey(base, sessionOf(expectStatus(enrolled, 201, 'enroll')), authenticator, `Member ${n} device`);
  return { session: await passkeySignIn(base, authenticator) };
}
