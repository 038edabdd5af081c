// Identity session benchmark: autocannon (c=50) against one Nest app on the PostgreSQL server,
// a host route guarded by @RequireIdentity() with a valid session cookie vs the same route
// unguarded, interleaved in the same run; median of rounds; target guarded ≥ 75% of unguarded with
// the default configuration. Then revocation latency across instances: a second process of the
// same deployment (same database and secrets) caches a session, the first revokes it with
// `POST /identity/v1/logout`, and the second is polled until it refuses; p50/p99 over --revocations.
// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/identity-session/run.mjs [--rounds 5] [--duration 5] [--revocations 200] [--session-cache-seconds N]
import { spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const connections = arg('connections', 50);
const revocations = arg('revocations', 200);
// `lifetimes.sessionCacheSeconds` of the app; the library default unless given.
const sessionCacheSeconds = arg('session-cache-seconds', undefined);
const server = fileURLToPath(new URL('./server.mjs', import.meta.url));

/** Starts one instance; resolves with its first stdout line (JSON) and the child. */
function start(extraEnv) {
  const child = spawn(process.execPath, [server], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...(sessionCacheSeconds === undefined
        ? {}
        : { TESSERA_BENCH_SESSION_CACHE_SECONDS: String(sessionCacheSeconds) }),
      ...extraEnv,
    },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const line = buffered.split('\n').find((l) => l.startsWith('{'));
      if (line !== undefined) resolve({ child, ...JSON.parse(line) });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}
const stop = (child) =>
  new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });

const primary = await start({});
const base = `http://127.0.0.1:${primary.port}`;
const targets = {
  guarded: { path: '/guarded', headers: { cookie: primary.cookie } },
  open: { path: '/open', headers: {} },
};

for (const [name, target] of Object.entries(targets)) {
  const res = await fetch(base + target.path, { headers: target.headers });
  if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
}
const denied = await fetch(`${base}/guarded`);
if (denied.status !== 401) throw new Error(`guarded route without a cookie answered ${denied.status}`);

const samples = { guarded: [], open: [] };
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 === 0 ? ['guarded', 'open'] : ['open', 'guarded']) {
    const { path, headers } = targets[name];
    if (round === 0) await autocannon({ url: base + path, headers, connections, duration: 1 });
    const result = await autocannon({ url: base + path, headers, connections, duration });
    if (result.non2xx !== 0 || result.errors !== 0)
      throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    samples[name].push(result.requests.average);
  }
  process.stderr.write(`round ${round + 1}/${rounds} done\n`);
}

// Revocation latency: revoked on the primary, refused by the peer.
const peer = await start({ TESSERA_BENCH_PEER_OF: JSON.stringify(primary.peer) });
const peerBase = `http://127.0.0.1:${peer.port}`;
const guardedOn = async (url, cookie) => (await fetch(`${url}/guarded`, { headers: { cookie } })).status;
const fromRequest = [];
const fromResponse = [];
for (let i = 0; i < revocations; i++) {
  const session = await (await fetch(`${base}/bench/session`, { method: 'POST' })).json();
  for (let j = 0; j < 3; j++) {
    const status = await guardedOn(peerBase, session.cookie);
    if (status !== 200) throw new Error(`peer refused a fresh session: ${status}`);
  }
  const sent = performance.now();
  const logout = await fetch(`${base}/identity/v1/logout`, {
    method: 'POST',
    headers: {
      cookie: session.cookie,
      origin: 'http://localhost:3000',
      'x-csrf-token': session.csrfToken,
      'content-type': 'application/json',
    },
    body: '{}',
  });
  const answered = performance.now();
  if (logout.status !== 200) throw new Error(`logout answered ${logout.status}: ${await logout.text()}`);
  while ((await guardedOn(peerBase, session.cookie)) === 200) {
    if (performance.now() - sent > 5000) throw new Error('the peer still accepts a session revoked 5 s ago');
  }
  const refused = performance.now();
  fromRequest.push(refused - sent);
  fromResponse.push(refused - answered);
}
await stop(peer.child);
await stop(primary.child);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const g = median(samples.guarded);
const o = median(samples.open);
console.log(`# Identity session benchmark — ${new Date().toISOString()}`);
console.log(
  `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}; PostgreSQL server (DATABASE_URL); c=${connections}, ${duration}s x ${rounds} rounds; lifetimes.sessionCacheSeconds=${sessionCacheSeconds ?? 'default'}\n`,
);
console.log('| route | median req/s | rounds (req/s) |');
console.log('|---|---:|---|');
console.log(`| GET /open (no guard) | ${Math.round(o)} | ${samples.open.map(Math.round).join(', ')} |`);
console.log(
  `| GET /guarded (@RequireIdentity, valid session cookie) | ${Math.round(g)} | ${samples.guarded.map(Math.round).join(', ')} |`,
);
console.log(`\nguarded / unguarded = ${((g / o) * 100).toFixed(1)}% (target ≥ 75%)`);
const ms = (x) => x.toFixed(1);
console.log(
  `\n| revocation on instance A, refused on instance B (${revocations} sessions) | p50 ms | p99 ms | max ms |`,
);
console.log('|---|---:|---:|---:|');
console.log(
  `| from sending the logout to A | ${ms(median(fromRequest))} | ${ms(quantile(fromRequest, 0.99))} | ${ms(Math.max(...fromRequest))} |`,
);
console.log(
  `| from A's answer | ${ms(median(fromResponse))} | ${ms(quantile(fromResponse, 0.99))} | ${ms(Math.max(...fromResponse))} |`,
);
console.log(`\n(target: refused on B in < 100 ms p99)`);
