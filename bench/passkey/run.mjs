// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/passkey/run.mjs --rounds 6 --duration 5 --warmup 60
// Passkey sign-in benchmark: route 4 (authentication/start) + route 5 (authentication/finish) with
// the software authenticator, 20 concurrent workers on one Nest app on the PostgreSQL server
// (bench/passkey/server.mjs, a fresh database per run). Reports per round and median: sign-ins/s,
// p50/p99 sign-in latency (start + assertion + finish, as the client sees it), and where the
// server's time goes per sign-in: the store (awaited IdentityStore calls), signature verification
// (the runtime's es256Verify, plus an isolated microbenchmark of the full verifyAssertion: strict
// parsing, every contract check and the signature) vs the server-side request time. Target (issue 4): p99 < 100 ms.
// The competitor, measured in the same run with rounds interleaved (Tessera, then it, each round):
// Better Auth 1.7.6 with its passkey plugin on the same PostgreSQL server, same workers, same
// software authenticator, same pool size (bench/passkey/better-auth-server.mjs; its packages live in
// bench/passkey/better-auth and are installed on first use).
// Options: --rounds 5 --duration 5 (seconds) --warmup 5 (seconds) --concurrency 20 --passkeys <concurrency>
// --servers 1 (Tessera server processes sharing the database; TESSERA_BENCH_POOL_MAX is per process)
// --competitor better-auth|none.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createNodeIdentityRuntime } from '@tessera/identity';
import { parseAuthenticationCredential } from '../../libs/identity/dist/passkeys/webauthn/credential-json.parser.js';
import { verifyAssertion } from '../../libs/identity/dist/passkeys/webauthn/webauthn.verifier.js';
// The authenticator alone (the package index also loads the Jest conformance suite).
import { SoftwareAuthenticator } from '@tessera/identity-testing/webauthn';
import { medianOf, storeMethodsPerOperation } from '../support/bench-report.mjs';
import { closedLoop } from '../support/load-loops.mjs';
import { startBetterAuth } from './better-auth-bench.mjs';
import {
  cookieOf,
  expectStatus,
  ORIGIN,
  request,
  startBenchServer,
  stopBenchServer,
} from '../support/bench-http.mjs';
import { bootstrapOwner, registerPasskey as registerPasskeyAt, sessionOf } from '../support/passkey-accounts.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/passkey runs on a PostgreSQL server: set DATABASE_URL');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const concurrency = arg('concurrency', 20);
// Seconds of sign-ins before the timed rounds (JIT, PostgreSQL caches and plans warm up).
const warmup = arg('warmup', 5);
// One user with one passkey (one device) per worker: a passkey's sign-ins are sequential in real
// life, and the store's compare-and-set on the credential row refuses overlapping finishes of one passkey.
const passkeys = arg('passkeys', concurrency);
const START = '/identity/v1/passkeys/authentication/start';
const FINISH = '/identity/v1/passkeys/authentication/finish';

const bootstrapSecret = randomBytes(24).toString('base64url');
// Server processes (default 1): with more, the first creates the database and the others share it;
// requests go round robin, a ceremony's start and finish to different processes (each one's pool
// max: TESSERA_BENCH_POOL_MAX).
const serverCount = arg('servers', 1);
// BENCH_SERVER_NODE_ARGS: extra node flags for the servers only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const competitorName = (() => {
  const i = process.argv.indexOf('--competitor');
  return i === -1 ? 'better-auth' : process.argv[i + 1];
})();
if (!['better-auth', 'none'].includes(competitorName)) throw new Error('--competitor better-auth|none');

const serverScript = fileURLToPath(new URL('./server.mjs', import.meta.url));
const startServer = (env) =>
  startBenchServer(serverScript, {
    env: { BENCH_BOOTSTRAP_SECRET: bootstrapSecret, ...env },
    nodeArgs: serverNodeArgs,
  });
const servers = [await startServer({})];
while (servers.length < serverCount) servers.push(await startServer({ BENCH_DATABASE_URL: servers[0].databaseUrl }));

/** POST to a Tessera server process (default the first). */
const post = (path, { server = 0, ...options } = {}) => request(servers[server].base, 'POST', path, options);
const registerPasskey = (session, authenticator, name) =>
  registerPasskeyAt(servers[0].base, session, authenticator, name);

/** The next server process, round robin (as a load balancer without affinity would pick). */
let nextServer = 0;
const roundRobin = () => (nextServer = (nextServer + 1) % servers.length);

/**
 * One username-free sign-in: its client-side latency in ms and the finish response. With several
 * server processes, start and finish each go to the next one: a ceremony needs no affinity.
 */
async function signIn(authenticator) {
  const t0 = performance.now();
  const start = expectStatus(await post(START, { server: roundRobin() }), 200, 'authentication start');
  const credential = authenticator.getAssertion(start.json.publicKey, { origin: ORIGIN });
  const finish = await post(FINISH, {
    body: { ceremonyId: start.json.ceremonyId, credential },
    cookies: [cookieOf(start, '__Host-tessera_ceremony')],
    server: roundRobin(),
  });
  expectStatus(finish, 200, 'authentication finish');
  return { ms: performance.now() - t0, finish };
}

/** Every server's totals since the last reset, summed (numbers added, other values from the first). */
async function stats() {
  const all = await Promise.all(
    servers.map(async ({ base }) => expectStatus(await request(base, 'GET', '/__bench/stats'), 200, 'stats').json),
  );
  const sum = (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a ?? b;
    const out = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = key in out ? sum(out[key], value) : value;
    return out;
  };
  return all.reduce(sum);
}
const resetStats = async () => {
  for (let server = 0; server < servers.length; server++)
    expectStatus(await post('/__bench/reset', { server }), 201, 'stats reset');
};

/**
 * `concurrency` workers, each looping `signInOnce(authenticator)` on its own passkey until
 * `seconds` have passed: throughput, latency percentiles, load-generator CPU.
 */
const closedLoopOn = (authenticators, signInOnce, seconds) =>
  closedLoop(concurrency, seconds, (worker) => signInOnce(authenticators[worker % authenticators.length]));

/** A Tessera round: the closed loop plus the servers' own accounting (every request answered 200). */
async function runRound(authenticators, seconds) {
  await resetStats();
  const loop = await closedLoopOn(authenticators, signIn, seconds);
  const server = await stats();
  const n = loop.completions;
  for (const path of [START, FINISH]) {
    const { count, statuses } = server.requests[path];
    if (count !== n || statuses['200'] !== n)
      throw new Error(`${path}: server saw ${JSON.stringify(statuses)}, client ${n} sign-ins`);
  }
  return {
    ...loop,
    serverMs: (server.requests[START].ms + server.requests[FINISH].ms) / n,
    storeMs: server.store.ms / n,
    storeCalls: server.store.calls / n,
    es256Ms: server.crypto.es256Verify.ms / n,
    sha256Ms: server.crypto.sha256.ms / n,
    cpuMs: server.cpuMs / n,
    methods: server.store.methods,
    postgres: server.postgres,
  };
}

/** A competitor round: the closed loop plus its server's CPU time per sign-in. */
async function runCompetitorRound(competitor, seconds) {
  await competitor.reset();
  const loop = await closedLoopOn(competitor.authenticators, competitor.signIn, seconds);
  return { ...loop, cpuMs: (await competitor.cpuMs()) / loop.completions };
}

/**
 * The full verifyAssertion (strict parsing, every contract check, es256Verify)
 * on a real assertion over a server-issued challenge, sequentially, with the server idle.
 */
async function verifyMicrobench(authenticator, userId) {
  const start = expectStatus(await post(START), 200, 'authentication start (microbenchmark)');
  const json = authenticator.getAssertion(start.json.publicKey, { origin: ORIGIN });
  const held = authenticator.credentials()[0];
  const inner = createNodeIdentityRuntime().crypto;
  let es256 = 0;
  const crypto = {
    ...inner,
    es256Verify: (...args) => {
      const t = performance.now();
      try {
        return inner.es256Verify(...args);
      } finally {
        es256 += performance.now() - t;
      }
    },
  };
  const credential = parseAuthenticationCredential(json);
  if (credential === undefined) throw new Error('microbenchmark: the assertion does not parse');
  const stored = {
    userId,
    webAuthnId: held.credentialId,
    publicKey: held.publicKey,
    signCount: held.signCount - 1,
    backupEligible: held.backupEligible,
  };
  const expected = {
    challengeDigest: inner.sha256(Buffer.from(start.json.publicKey.challenge, 'base64url')),
    origins: [ORIGIN],
    rpId: 'localhost',
  };
  const once = async () => {
    const result = await verifyAssertion(crypto, credential, json, stored, expected);
    if (!result.ok || result.value.counterRegressed) throw new Error(`microbenchmark: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < 200; i++) await once();
  es256 = 0;
  let iterations = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    await once();
    iterations += 1;
  }
  const total = performance.now() - t0;
  return { verifyMs: total / iterations, es256Ms: es256 / iterations, iterations };
}

/** The competitor's handle once started (stopped in the `finally`). */
let competitor;
try {
  // Owner bootstrap → restricted session → first passkey (the session ends with it) → sign-in with
  // it → a full owner session that invites one member per further worker; each member enrolls
  // (restricted session) and registers its own passkey. One user per passkey, as in real traffic:
  // concurrent sign-ins of one user would all lock that user's row.
  const bootstrap = await bootstrapOwner(servers[0].base, bootstrapSecret);
  const userId = bootstrap.json.userId;
  const organizationId = bootstrap.json.organization.id;
  const authenticators = [new SoftwareAuthenticator()];
  await registerPasskey(sessionOf(bootstrap), authenticators[0], 'Owner device');
  const owner = sessionOf((await signIn(authenticators[0])).finish);
  while (authenticators.length < passkeys) {
    const n = authenticators.length;
    const invitation = await post(`/identity/v1/organizations/${organizationId}/invitations`, {
      body: { email: `member${n}@bench.example`, role: 'viewer' },
      cookies: [owner.cookie],
      csrfToken: owner.csrfToken,
    });
    expectStatus(invitation, 201, 'invitation');
    const enrolled = await post('/identity/v1/invitations/enroll', {
      body: { token: invitation.json.token, displayName: `Member ${n}` },
    });
    const authenticator = new SoftwareAuthenticator();
    await registerPasskey(sessionOf(expectStatus(enrolled, 201, 'enroll')), authenticator, `Member ${n} device`);
    authenticators.push(authenticator);
  }

  if (competitorName === 'better-auth') competitor = await startBetterAuth({ users: passkeys });

  // Warm-ups alternate in slices of at most 10 s, so neither side idles longer than that before its
  // first timed round (an idle pooled connection is closed after 30 s by Tessera's pool, 10 s by
  // pg-pool's; reopening them would land in one side's first round only).
  for (let done = 0; done < warmup; done += 10) {
    const slice = Math.min(10, warmup - done);
    await runRound(authenticators, slice);
    if (competitor !== undefined) await runCompetitorRound(competitor, slice);
  }
  const results = [];
  const competitorResults = [];
  const f0 = (x) => x.toFixed(0);
  for (let round = 0; round < rounds; round++) {
    const r = await runRound(authenticators, duration);
    results.push(r);
    let line = `round ${round + 1}/${rounds}: Tessera ${f0(r.perSecond)} sign-ins/s, p99 ${r.p99.toFixed(1)} ms`;
    if (competitor !== undefined) {
      const c = await runCompetitorRound(competitor, duration);
      competitorResults.push(c);
      line += `; ${competitorName} ${f0(c.perSecond)} sign-ins/s, p99 ${c.p99.toFixed(1)} ms`;
    }
    process.stderr.write(`${line}\n`);
  }
  const micro = await verifyMicrobench(authenticators[0], userId);

  const median = (key) => medianOf(results, key);
  const pctOf = (part, whole) => {
    const share = (part / whole) * 100;
    return `${share.toFixed(share < 10 ? 1 : 0)}%`;
  };
  const f1 = (x) => x.toFixed(1);
  const f2 = (x) => x.toFixed(2);
  const row = (label, r) =>
    `| ${label} | ${r.completions ?? ''} | ${Math.round(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} | ${f2(r.serverMs)} | ` +
    `${f2(r.storeMs)} (${pctOf(r.storeMs, r.serverMs)}) | ${f2(r.es256Ms)} (${pctOf(r.es256Ms, r.serverMs)}) | ${f2(r.cpuMs)} |`;
  const med = Object.fromEntries(
    ['perSecond', 'p50', 'p99', 'serverMs', 'storeMs', 'es256Ms', 'cpuMs', 'clientCpuMs', 'storeCalls'].map((k) => [
      k,
      median(k),
    ]),
  );

  const cpus = os.cpus();
  console.log(`# Passkey sign-in benchmark — ${new Date().toISOString()}`);
  console.log(
    `${cpus[0].model}, ${cpus.length} cores, Node ${process.version}; PostgreSQL ${results[0].postgres} (DATABASE_URL); ` +
      `concurrency ${concurrency}, ${passkeys} passkeys, ${servers.length} server process${servers.length === 1 ? '' : 'es'}, ${duration}s x ${rounds} rounds after a ${warmup} s warm-up\n`,
  );
  console.log(
    '| round | sign-ins | sign-ins/s | p50 ms | p99 ms | server ms / sign-in (start + finish) | store ms (share) | es256Verify ms (share) | server CPU ms / sign-in |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  results.forEach((r, i) => console.log(row(String(i + 1), r)));
  console.log(row('**median**', med));
  console.log(
    `\nSignature verification, isolated (server idle, sequential, ${micro.iterations} runs): full verifyAssertion ` +
      `${f2(micro.verifyMs)} ms per sign-in (es256Verify ${f2(micro.es256Ms)} ms; parsing and checks ` +
      `${f2(micro.verifyMs - micro.es256Ms)} ms) = ${pctOf(micro.verifyMs, med.serverMs)} of the median ` +
      `server time per sign-in, ${pctOf(micro.verifyMs, med.cpuMs)} of the server's CPU time per sign-in.`,
  );
  console.log(
    `Store: ${f1(med.storeCalls)} awaited calls per sign-in, ${f2(med.storeMs)} ms = ${pctOf(med.storeMs, med.serverMs)} of ` +
      `the server time (wall time, including waits for a pool connection and for the event loop).`,
  );
  console.log(
    `Load generator (same machine): ${f2(med.clientCpuMs)} ms CPU per sign-in (fetch, JSON, the software ` +
      `authenticator's signature); server request time is headers in → response end, so at concurrency ` +
      `${concurrency} it includes waiting for the event loop.`,
  );
  console.log(`Store by method (ms per sign-in, all rounds): ${storeMethodsPerOperation(results)}`);
  if (competitor !== undefined) {
    const cmed = Object.fromEntries(
      ['perSecond', 'p50', 'p99', 'cpuMs', 'clientCpuMs'].map((k) => [k, medianOf(competitorResults, k)]),
    );
    const x = (ratio) => `${ratio.toFixed(2)}×`;
    console.log(
      `\nCompetitor, same run, rounds interleaved: Better Auth 1.7.6 + @better-auth/passkey 1.7.6 on node:http ` +
        `(PostgreSQL ${competitor.postgres}, pool 20, rate limiter off)\n`,
    );
    console.log('| round | sign-ins | sign-ins/s | p50 ms | p99 ms | server CPU ms / sign-in |');
    console.log('|---|---:|---:|---:|---:|---:|');
    const crow = (label, r) =>
      `| ${label} | ${r.completions ?? ''} | ${Math.round(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} | ${f2(r.cpuMs)} |`;
    competitorResults.forEach((r, i) => console.log(crow(String(i + 1), r)));
    console.log(crow('**median**', cmed));
    console.log(
      `\nTessera / Better Auth (medians): sign-ins/s ${x(med.perSecond / cmed.perSecond)}; p50 ${x(med.p50 / cmed.p50)}, ` +
        `p99 ${x(med.p99 / cmed.p99)} (lower is faster); server CPU per sign-in ${x(med.cpuMs / cmed.cpuMs)}.`,
    );
  }
  console.log(
    `\np99 = ${f1(med.p99)} ms at concurrency ${concurrency} (target < 100 ms): ${med.p99 < 100 ? 'met' : 'not met'}.`,
  );
} finally {
  await competitor?.stop();
  // The first server drops the database: the others go first.
  for (const server of servers.slice(1).reverse()) await stopBenchServer(server);
  servers[0].child.kill('SIGTERM');
}
