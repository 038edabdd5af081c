// The load generator's side of a Better Auth competitor (bench/passkey, bench/device): installs its
// package folder on first use, starts its server script, and calls its routes under /api/auth.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cookieOf, expectStatus, request, startBenchServer, stopBenchServer } from './bench-http.mjs';

/** Better Auth's session cookie. */
export const SESSION_COOKIE = 'better-auth.session_token';

/**
 * `npm ci` of a competitor's package folder (pinned by its lockfile) when it has no
 * node_modules/better-auth yet.
 */
function ensureCompetitorInstalled(folder) {
  if (existsSync(`${folder}/node_modules/better-auth`)) return;
  process.stderr.write(`installing the competitor (npm ci --prefix ${folder})\n`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', folder], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Starts the Better Auth server `script` (a URL) whose packages live in `folder` (a URL). Resolves with
 * `call(method, path, options)` under /api/auth, its `base` URL and `databaseUrl`, `signUp(n)` (user `n` by email: its session
 * cookie), `reset()`/`cpuMs()` of the server's CPU time, `postgres` and `stop()`.
 */
export async function startBetterAuthServer(script, folder) {
  ensureCompetitorInstalled(fileURLToPath(folder));
  const server = await startBenchServer(fileURLToPath(script));
  const call = (method, path, options) => request(server.base, method, `/api/auth${path}`, options);
  return {
    call,
    base: server.base,
    databaseUrl: server.databaseUrl,
    postgres: server.rest.join(' ') || 'unknown',
    async signUp(n) {
      const signUp = await call('POST', '/sign-up/email', {
        body: {
          email: `member${n}@bench.example`,
          password: `bench password ${n} for better auth`,
          name: `Member ${n}`,
        },
      });
      return cookieOf(expectStatus(signUp, 200, 'better-auth sign-up'), SESSION_COOKIE);
    },
    reset: async () => expectStatus(await request(server.base, 'POST', '/__bench/reset'), 200, 'better-auth reset'),
    cpuMs: async () => (await request(server.base, 'GET', '/__bench/cpu')).json.cpuMs,
    stop: () => stopBenchServer(server),
  };
}
