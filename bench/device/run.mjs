// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:device (about 4 minutes on 2 busy cores)
// Device-flow token endpoint benchmark (issue 13), 20 concurrent clients on one Nest app on the
// PostgreSQL server (bench/device/server.mjs, a fresh database per run, dropped at the end):
// 1. Refresh-token rotation: POST /oauth/token grant_type=refresh_token. `--families` token families
//    (default 200) are created before the timed phase (device authorization, inspect + approve by the
//    owner's passkey session, device-code exchange); each worker rotates its own families in turn and
//    always presents the refresh token the previous rotation of that family returned — a fresh,
//    unused token on every request, never a retry inside the retry window.
// 2. Device-code exchange: POST /oauth/token with the device-code grant on a code approved before
//    the timed phase (`--exchanges` codes per round and side, prepared just before the round), each
//    code presented once, answered with a new token family (access + refresh token).
// The competitor, same run, rounds interleaved: Better Auth 1.7.6 with its device-authorization
// plugin (bench/device/better-auth-server.mjs; packages in bench/device/better-auth, installed on
// first use). Its plugin issues no refresh token (no rotation to compare), so it is measured on the
// exchange only: POST /api/auth/device/token on a code its user approved (answers a session token).
// Reports per round and median: operations/s, p50/p99 client-side latency, server CPU per operation,
// and (Tessera) store calls and store time per operation. Targets: p99 < 50 ms and ≥ 2× the
// competitor's throughput in the same run.
// Options: --rounds 5 --duration 5 (seconds, rotation) --warmup 5 (seconds) --concurrency 20
// --users <concurrency> --families 200 --exchanges 300 --competitor better-auth|none.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { expectStatus, request, startBenchServer, stopBenchServer } from '../support/bench-http.mjs';
import { passkeyMember, passkeyOwner } from '../support/passkey-accounts.mjs';
import { startBetterAuthDevice } from './better-auth-bench.mjs';
import { printDeviceReport } from './device-report.mjs';
import { closedLoop, fixedWork, inParallel } from '../support/load-loops.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/device runs on a PostgreSQL server: set DATABASE_URL');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const warmup = arg('warmup', 5);
const concurrency = arg('concurrency', 20);
const familyCount = arg('families', 200);
const exchanges = arg('exchanges', 300);
// Approving users (the owner and invited members; Better Auth: signed-up users), one per worker by
// default: every command of a family locks its membership row `for share`, and a user's own CLI
// logins are few in real traffic — one user approving every family would make 20 concurrent
// transactions share-lock one row.
const users = arg('users', concurrency);
const competitorName = (() => {
  const i = process.argv.indexOf('--competitor');
  return i === -1 ? 'better-auth' : process.argv[i + 1];
})();
if (!['better-auth', 'none'].includes(competitorName)) throw new Error('--competitor better-auth|none');

const CLIENT_ID = 'tessera-cli';
// The CLI's default scopes (package.publish is a capability of the demo app's own resolvers).
const SCOPE = 'identity.profile identity.organizations';
const TOKEN = '/oauth/token';
const bootstrapSecret = randomBytes(24).toString('base64url');
const server = await startBenchServer(fileURLToPath(new URL('./server.mjs', import.meta.url)), {
  env: { BENCH_BOOTSTRAP_SECRET: bootstrapSecret },
});
const post = (path, options) => request(server.base, 'POST', path, options);

/**
 * The Tessera side: `users` approvers (the owner, then viewers) approve codes over HTTP (code `i`
 * by approver `i % users`); the device exchanges and refreshes.
 */
async function tesseraDevice() {
  const owner = await passkeyOwner(server.base, bootstrapSecret);
  const approvers = [owner];
  while (approvers.length < users) approvers.push(await passkeyMember(server.base, owner, approvers.length, 'viewer'));
  return {
    async approvedDeviceCode(i) {
      const { session } = approvers[i % users];
      const auth = { cookies: [session.cookie], csrfToken: session.csrfToken };
      const started = expectStatus(
        await post('/oauth/device_authorization', {
          form: { client_id: CLIENT_ID, client_name: 'Bench', scope: SCOPE },
        }),
        200,
        'device authorization',
      );
      const userCode = started.json.user_code;
      expectStatus(await post('/identity/v1/device', { ...auth, body: { userCode } }), 200, 'device inspect');
      const approve = { userCode, organizationId: owner.organizationId, capabilities: SCOPE.split(' ') };
      expectStatus(await post('/identity/v1/device/approve', { ...auth, body: approve }), 200, 'device approve');
      return started.json.device_code;
    },
    async exchange(deviceCode) {
      const form = {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: deviceCode,
        client_id: CLIENT_ID,
      };
      return expectStatus(await post(TOKEN, { form }), 200, 'device-code exchange').json;
    },
    async refresh(refreshToken) {
      const form = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID };
      return expectStatus(await post(TOKEN, { form }), 200, 'refresh').json;
    },
  };
}

const stats = async () => expectStatus(await request(server.base, 'GET', '/__bench/stats'), 200, 'stats').json;
const resetStats = async () => expectStatus(await post('/__bench/reset'), 201, 'stats reset');

/** A Tessera round's server accounting: every token request answered 200, per operation figures. */
async function serverShare(loop) {
  const server = await stats();
  const { count, statuses, ms } = server.requests[TOKEN];
  const n = loop.completions;
  if (count !== n || statuses['200'] !== n)
    throw new Error(`${TOKEN}: server saw ${JSON.stringify(statuses)}, client ${n} requests`);
  return {
    ...loop,
    serverMs: ms / n,
    storeMs: server.store.ms / n,
    storeCalls: server.store.calls / n,
    cpuMs: server.cpuMs / n,
    methods: server.store.methods,
    postgres: server.postgres,
  };
}

/** Rotations for `seconds`: each worker cycles through its families, always with the latest token. */
async function rotationRound(tessera, families, seconds) {
  await resetStats();
  const next = Array.from({ length: concurrency }, (_, worker) => worker);
  const loop = await closedLoop(concurrency, seconds, async (worker) => {
    const family = next[worker];
    next[worker] = family + concurrency < families.length ? family + concurrency : worker;
    families[family] = (await tessera.refresh(families[family])).refresh_token;
  });
  return serverShare(loop);
}

/** Prepares `exchanges` approved codes (untimed), then exchanges each once at `concurrency`. */
async function tesseraExchangeRound(tessera) {
  const codes = await inParallel(exchanges, concurrency, (i) => tessera.approvedDeviceCode(i));
  await resetStats();
  return serverShare(await fixedWork(codes, concurrency, (code) => tessera.exchange(code)));
}

async function competitorExchangeRound(competitor) {
  const codes = await inParallel(exchanges, concurrency, (i) => competitor.approvedDeviceCode(i));
  await competitor.reset();
  const loop = await fixedWork(codes, concurrency, (code) => competitor.exchange(code));
  return { ...loop, cpuMs: (await competitor.cpuMs()) / loop.completions };
}

let competitor;
try {
  const tessera = await tesseraDevice();
  const families = await inParallel(
    familyCount,
    concurrency,
    async (i) => (await tessera.exchange(await tessera.approvedDeviceCode(i))).refresh_token,
  );
  if (competitorName === 'better-auth') competitor = await startBetterAuthDevice({ scope: SCOPE, users });

  await rotationRound(tessera, families, warmup);
  await tesseraExchangeRound(tessera);
  if (competitor !== undefined) await competitorExchangeRound(competitor);
  const rotation = [];
  const exchange = [];
  const competitorExchange = [];
  for (let round = 0; round < rounds; round++) {
    const r = await rotationRound(tessera, families, duration);
    const e = await tesseraExchangeRound(tessera);
    rotation.push(r);
    exchange.push(e);
    let line =
      `round ${round + 1}/${rounds}: rotation ${r.perSecond.toFixed(0)}/s p99 ${r.p99.toFixed(1)} ms; ` +
      `exchange ${e.perSecond.toFixed(0)}/s p99 ${e.p99.toFixed(1)} ms`;
    if (competitor !== undefined) {
      const c = await competitorExchangeRound(competitor);
      competitorExchange.push(c);
      line += `; ${competitorName} exchange ${c.perSecond.toFixed(0)}/s p99 ${c.p99.toFixed(1)} ms`;
    }
    process.stderr.write(`${line}\n`);
  }
  const cpus = os.cpus();
  printDeviceReport({
    header:
      `${cpus[0].model}, ${cpus.length} cores, Node ${process.version}; PostgreSQL ${rotation[0].postgres} (DATABASE_URL); ` +
      `concurrency ${concurrency}, ${users} approving users, ${familyCount} families, rotation ${duration} s x ${rounds} rounds after a ${warmup} s warm-up, ` +
      `${exchanges} exchanges per round and side after one warm-up round`,
    concurrency,
    rotation,
    exchange,
    competitorExchange: competitor === undefined ? undefined : competitorExchange,
    competitorPostgres: competitor?.postgres,
  });
} finally {
  await competitor?.stop();
  await stopBenchServer(server);
}
