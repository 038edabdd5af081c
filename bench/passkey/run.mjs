// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/passkey/run.mjs --rounds 6 --duration 5 --warmup 60
// Passkey sign-in benchmark: route 4 (authentication/start) + route 5 (authentication/finish) with
// the software authenticator, 20 concurrent workers on one Nest app on the PostgreSQL server
// (bench/passkey/server.mjs, a fresh database per run). Reports per round and median: sign-ins/s,
// p50/p99 sign-in latency (start + assertion + finish, as the client sees it), and where the
// server's time goes per sign-in: the store (awaited IdentityStore calls), signature verification
// (the runtime's es256Verify, plus an isolated microbenchmark of the full verifyAssertion: strict
// parsing, every contract check and the signature) vs the server-side request time. Target (issue 4): p99 < 100 ms.
// Options: --rounds 5 --duration 5 (seconds) --warmup 5 (seconds) --concurrency 20 --passkeys <concurrency>
// --servers 1 (server processes sharing the database; TESSERA_BENCH_POOL_MAX is per process).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createNodeIdentityRuntime } from '../../dist/libs/identity/src/index.js';
import { parseAuthenticationCredential } from '../../dist/libs/identity/src/passkeys/webauthn/credential-json.parser.js';
import { verifyAssertion } from '../../dist/libs/identity/src/passkeys/webauthn/webauthn.verifier.js';
// The authenticator alone (the identity-testing index also loads the Jest conformance suite).
import { SoftwareAuthenticator } from '../../dist/libs/identity-testing/src/webauthn/index.js';

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
const ORIGIN = 'http://localhost:3000';
const START = '/identity/v1/passkeys/authentication/start';
const FINISH = '/identity/v1/passkeys/authentication/finish';

const bootstrapSecret = randomBytes(24).toString('base64url');
// Server processes (default 1): with more, the first creates the database and the others share it;
// requests go round robin, a ceremony's start and finish to different processes (each one's pool
// max: TESSERA_BENCH_POOL_MAX).
const serverCount = arg('servers', 1);
// BENCH_SERVER_NODE_ARGS: extra node flags for the servers only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
/** Starts bench/passkey/server.mjs; resolves with the child, its port and its database URL. */
function startServer(env) {
  const child = spawn(process.execPath, [...serverNodeArgs, fileURLToPath(new URL('./server.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_BOOTSTRAP_SECRET: bootstrapSecret, ...env },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const line = buffered.split('\n').find((l) => /^\d+ \S+$/.test(l.trim()));
      if (line !== undefined) {
        const [port, databaseUrl] = line.trim().split(' ');
        resolve({ child, base: `http://127.0.0.1:${port}`, databaseUrl });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}
const servers = [await startServer({})];
while (servers.length < serverCount) servers.push(await startServer({ BENCH_DATABASE_URL: servers[0].databaseUrl }));

/**
 * POST with Origin (and cookies, CSRF token, JSON body when given) over a keep-alive `node:http`
 * agent: the load generator shares the machine, so it uses the cheapest client Node has.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function post(path, { body, cookies = [], csrfToken, server = 0 } = {}) {
  const headers = { origin: ORIGIN };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  if (csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  return new Promise((resolve, reject) => {
    const req = http.request(servers[server].base + path, { method: 'POST', headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const setCookie = res.headers['set-cookie'] ?? [];
        resolve({
          status: res.statusCode,
          text,
          json: text === '' ? undefined : JSON.parse(text),
          setCookies: setCookie,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}
/** `name=value` of a cookie the response set (not a clearing one). */
function cookieOf(res, name) {
  const cookie = res.setCookies.find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  if (cookie === undefined) throw new Error(`no ${name} cookie in ${res.status} response`);
  return cookie.split(';')[0];
}
const sessionOf = (res) => ({ cookie: cookieOf(res, '__Host-tessera_session'), csrfToken: res.json.csrfToken });

async function registerPasskey(session, authenticator, name) {
  const auth = { cookies: [session.cookie], csrfToken: session.csrfToken };
  const start = expectStatus(await post('/identity/v1/passkeys/registration/start', auth), 200, 'registration start');
  const credential = authenticator.createCredential(start.json.publicKey, { origin: ORIGIN });
  const finish = await post('/identity/v1/passkeys/registration/finish', {
    body: { ceremonyId: start.json.ceremonyId, credentialName: name, credential },
    cookies: [session.cookie, cookieOf(start, '__Host-tessera_ceremony')],
    csrfToken: session.csrfToken,
  });
  return expectStatus(finish, 200, `registration finish (${name})`);
}

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
    servers.map(async ({ base }) => {
      const res = await fetch(`${base}/__bench/stats`);
      if (res.status !== 200) throw new Error(`stats: ${res.status} ${await res.text()}`);
      return res.json();
    }),
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

/** `concurrency` workers, each looping sign-ins on its own passkey until `seconds` have passed. */
async function runRound(authenticators, seconds) {
  await resetStats();
  const latencies = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      const authenticator = authenticators[worker % authenticators.length];
      while (performance.now() < deadline) latencies.push((await signIn(authenticator)).ms);
    }),
  );
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const server = await stats();
  const n = latencies.length;
  for (const path of [START, FINISH]) {
    const { count, statuses } = server.requests[path];
    if (count !== n || statuses['200'] !== n)
      throw new Error(`${path}: server saw ${JSON.stringify(statuses)}, client ${n} sign-ins`);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)];
  return {
    completions: n,
    perSecond: n / (elapsed / 1000),
    p50: pct(50),
    p99: pct(99),
    serverMs: (server.requests[START].ms + server.requests[FINISH].ms) / n,
    storeMs: server.store.ms / n,
    storeCalls: server.store.calls / n,
    es256Ms: server.crypto.es256Verify.ms / n,
    sha256Ms: server.crypto.sha256.ms / n,
    cpuMs: server.cpuMs / n,
    clientCpuMs: (cpu.user + cpu.system) / 1000 / n,
    methods: server.store.methods,
    postgres: server.postgres,
  };
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

try {
  // Owner bootstrap → restricted session → first passkey (the session ends with it) → sign-in with
  // it → a full owner session that invites one member per further worker; each member enrolls
  // (restricted session) and registers its own passkey. One user per passkey, as in real traffic:
  // concurrent sign-ins of one user would all lock that user's row.
  const bootstrap = expectStatus(
    await post('/identity/v1/bootstrap', {
      body: {
        secret: bootstrapSecret,
        displayName: 'Bench Owner',
        primaryEmail: 'owner@bench.example',
        organizationName: 'Bench',
        organizationSlug: 'bench',
      },
    }),
    201,
    'bootstrap',
  );
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

  await runRound(authenticators, warmup);
  const results = [];
  for (let round = 0; round < rounds; round++) {
    results.push(await runRound(authenticators, duration));
    const r = results.at(-1);
    process.stderr.write(
      `round ${round + 1}/${rounds}: ${r.perSecond.toFixed(0)} sign-ins/s, p99 ${r.p99.toFixed(1)} ms\n`,
    );
  }
  const micro = await verifyMicrobench(authenticators[0], userId);

  const median = (key) => {
    const xs = results.map((r) => r[key]).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)];
  };
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
  const methods = {};
  for (const r of results)
    for (const [name, m] of Object.entries(r.methods)) {
      methods[name] ??= { calls: 0, ms: 0 };
      methods[name].calls += m.calls;
      methods[name].ms += m.ms;
    }
  const total = results.reduce((sum, r) => sum + r.completions, 0);
  console.log(
    'Store by method (ms per sign-in, all rounds): ' +
      Object.entries(methods)
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([name, m]) => `${name} ${f2(m.ms / total)} (${f1(m.calls / total)}×)`)
        .join(', '),
  );
  console.log(
    `\np99 = ${f1(med.p99)} ms at concurrency ${concurrency} (target < 100 ms): ${med.p99 < 100 ? 'met' : 'not met'}.`,
  );
} finally {
  // The first server drops the database: the others go first.
  for (const { child } of servers.slice(1).reverse()) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  servers[0].child.kill('SIGTERM');
}
