// The competitor side of bench/device: starts bench/device/better-auth-server.mjs (installing its
// package folder on first use), signs up `users` users by email, and drives the device flow through
// Better Auth's own routes as its client and verification page do: POST /api/auth/device/code,
// GET /api/auth/device?user_code= with the user's session (claims the code for the user), POST
// /api/auth/device/approve, then the device's POST /api/auth/device/token (JSON: its 1.7.6 token
// route accepts no form bodies), which answers a session token as `access_token` — Better Auth's
// plugin issues no refresh token, so there is no rotation to compare.
import { expectStatus } from '../support/bench-http.mjs';
import { startBetterAuthServer } from '../support/better-auth-client.mjs';

const CLIENT_ID = 'tessera-cli';

/**
 * Better Auth with its device-authorization plugin and `users` users. Resolves with
 * `approvedDeviceCode(i)` (a code user `i % users` approved), `exchange(deviceCode)` (its token
 * request), `reset()`/`cpuMs()` of the server's CPU time, `postgres`, `stop()`.
 */
export async function startBetterAuthDevice({ scope, users }) {
  const competitor = await startBetterAuthServer(
    new URL('./better-auth-server.mjs', import.meta.url),
    new URL('./better-auth', import.meta.url),
  );
  const { call } = competitor;
  try {
    const sessions = [];
    for (let n = 0; n < users; n++) sessions.push(await competitor.signUp(n));
    return {
      ...competitor,
      async approvedDeviceCode(i) {
        const session = sessions[i % users];
        const started = expectStatus(
          await call('POST', '/device/code', { form: { client_id: CLIENT_ID, scope } }),
          200,
          'better-auth device code',
        );
        const userCode = encodeURIComponent(started.json.user_code);
        const verified = await call('GET', `/device?user_code=${userCode}`, { cookies: [session] });
        if (expectStatus(verified, 200, 'better-auth device verify').json.status !== 'pending')
          throw new Error(`better-auth device verify: ${verified.text}`);
        const approved = await call('POST', '/device/approve', {
          body: { userCode: started.json.user_code },
          cookies: [session],
        });
        expectStatus(approved, 200, 'better-auth device approve');
        return started.json.device_code;
      },
      async exchange(deviceCode) {
        const res = await call('POST', '/device/token', {
          body: {
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: deviceCode,
            client_id: CLIENT_ID,
          },
        });
        if (typeof expectStatus(res, 200, 'better-auth device token').json.access_token !== 'string')
          throw new Error('better-auth device token: no access_token');
      },
    };
  } catch (error) {
    await competitor.stop();
    throw error;
  }
}
