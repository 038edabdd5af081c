// Identity session benchmark: autocannon (c=50) against one Nest app on the PostgreSQL server,
// a host route guarded by @RequireIdentity() with a valid session cookie vs the same route
// unguarded, interleaved in the same run; median of rounds; target guarded ≥ 60% of unguarded.
// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/identity-session/run.mjs [--rounds 5] [--duration 5] [--session-cache-seconds 0]
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const connections = arg('connections', 50);
// `lifetimes.sessionCacheSeconds` of the app (0 = the default: every request reads the store).
const sessionCacheSeconds = arg('session-cache-seconds', 0);

const child = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url))], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, TESSERA_BENCH_SESSION_CACHE_SECONDS: String(sessionCacheSeconds) },
});
const [port, cookie] = await new Promise((resolve, reject) => {
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += String(chunk);
    const line = buffered.split('\n').find((l) => /^\d+ __Host-tessera_session=/.test(l));
    if (line !== undefined) resolve(line.trim().split(' '));
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const base = `http://127.0.0.1:${port}`;
const targets = { guarded: { path: '/guarded', headers: { cookie } }, open: { path: '/open', headers: {} } };

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
child.kill('SIGTERM');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const g = median(samples.guarded);
const o = median(samples.open);
console.log(`# Identity session benchmark — ${new Date().toISOString()}`);
console.log(
  `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}; PostgreSQL server (DATABASE_URL); c=${connections}, ${duration}s x ${rounds} rounds; lifetimes.sessionCacheSeconds=${sessionCacheSeconds}\n`,
);
console.log('| route | median req/s | rounds (req/s) |');
console.log('|---|---:|---|');
console.log(`| GET /open (no guard) | ${Math.round(o)} | ${samples.open.map(Math.round).join(', ')} |`);
console.log(
  `| GET /guarded (@RequireIdentity, valid session cookie) | ${Math.round(g)} | ${samples.guarded.map(Math.round).join(', ')} |`,
);
console.log(`\nguarded / unguarded = ${((g / o) * 100).toFixed(1)}% (target ≥ 60%)`);
