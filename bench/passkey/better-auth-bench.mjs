// The competitor side of bench/passkey: starts bench/passkey/better-auth-server.mjs (installing its
// package folder on first use), enrolls one user with one passkey per worker through Better Auth's
// own routes (email sign-up, then passkey registration with the same software authenticator), and
// signs in the way its client does: GET /api/auth/passkey/generate-authenticate-options, the
// assertion, POST /api/auth/passkey/verify-authentication.
import { performance } from 'node:perf_hooks';
import { SoftwareAuthenticator } from '@tessera/identity-testing/webauthn';
import { cookieOf, expectStatus, ORIGIN } from '../support/bench-http.mjs';
import { SESSION_COOKIE, startBetterAuthServer } from '../support/better-auth-client.mjs';

const CHALLENGE_COOKIE = 'better-auth.better-auth-passkey';

/**
 * Better Auth with `users` users of one passkey each. Resolves with the authenticators and
 * `signIn(authenticator)` (client-side ms), `reset()`/`cpuMs()` of the server's CPU time, `stop()`.
 */
export async function startBetterAuth({ users }) {
  const competitor = await startBetterAuthServer(
    new URL('./better-auth-server.mjs', import.meta.url),
    new URL('./better-auth', import.meta.url),
  );
  const { call } = competitor;
  try {
    const authenticators = [];
    for (let n = 0; n < users; n++) {
      const session = await competitor.signUp(n);
      const options = expectStatus(
        await call('GET', '/passkey/generate-register-options', { cookies: [session] }),
        200,
        'better-auth registration options',
      );
      const authenticator = new SoftwareAuthenticator();
      const response = authenticator.createCredential(options.json, { origin: ORIGIN });
      const registered = await call('POST', '/passkey/verify-registration', {
        body: { response, name: `Member ${n} device` },
        cookies: [session, cookieOf(options, CHALLENGE_COOKIE)],
      });
      expectStatus(registered, 200, 'better-auth passkey registration');
      authenticators.push(authenticator);
    }
    return {
      ...competitor,
      authenticators,
      async signIn(authenticator) {
        const t0 = performance.now();
        const start = expectStatus(
          await call('GET', '/passkey/generate-authenticate-options'),
          200,
          'better-auth authentication options',
        );
        const response = authenticator.getAssertion(start.json, { origin: ORIGIN });
        const finish = await call('POST', '/passkey/verify-authentication', {
          body: { response },
          cookies: [cookieOf(start, CHALLENGE_COOKIE)],
        });
        cookieOf(expectStatus(finish, 200, 'better-auth verify-authentication'), SESSION_COOKIE);
        return performance.now() - t0;
      },
    };
  } catch (error) {
    await competitor.stop();
    throw error;
  }
}
