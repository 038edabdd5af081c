// HTTP benchmark: autocannon (c=50) against one Nest app with ~300 routes, answering the
// last-registered dynamic GET route through RouterModule (mount 'express' and 'server') and as a
// Nest controller on the Express adapter, all in the same run, interleaved, median of rounds.
// Usage: npm run build && node bench/http/run.mjs [--rounds 5] [--duration 5] [--connections 50]
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { githubRoutes } from '../router/github-routes.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 5);
const duration = arg('duration', 5);
const connections = arg('connections', 50);
const modes = ['nest', 'express', 'server', 'ceiling'];
const last = [...githubRoutes].reverse().find((r) => r.method === 'GET' && r.path.includes(':'));
const target = last.path.replace(/:[A-Za-z_]+/g, '42');

function start(mode) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./server.mjs', import.meta.url)), '--mode', mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.once('data', (chunk) => resolve({ child, port: Number(String(chunk).trim()) }));
    child.once('exit', (code) => reject(new Error(`server ${mode} exited with ${code}`)));
  });
}

async function measure(mode) {
  const { child, port } = await start(mode);
  const url = `http://127.0.0.1:${port}${target}`;
  const check = await fetch(url);
  const text = await check.text();
  if (check.status !== 200 || text !== 'hello world')
    throw new Error(`${mode}: GET ${target} answered ${check.status} ${text}`);
  await autocannon({ url, connections, duration: 1 }); // warm-up
  const result = await autocannon({ url, connections, duration });
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (result.non2xx !== 0 || result.errors !== 0)
    throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = Object.fromEntries(modes.map((m) => [m, []]));
for (let round = 0; round < rounds; round++) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) samples[mode].push(await measure(mode));
  process.stderr.write(`round ${round + 1}/${rounds} done\n`);
}
const base = median(samples.nest);
const label = {
  nest: 'Nest controller (Express adapter)',
  express: "RouterModule mount: 'express'",
  server: "RouterModule mount: 'server'",
  ceiling: 'reference: first Express middleware calling res.end',
};
console.log(`# HTTP benchmark — ${new Date().toISOString()}`);
console.log(
  `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}; ${githubRoutes.length} routes; GET ${target} (last registered dynamic GET); c=${connections}, ${duration}s x ${rounds} rounds\n`,
);
console.log('| server | median req/s | rounds (req/s) | ratio to Nest controller |');
console.log('|---|---:|---|---:|');
for (const mode of modes) {
  const m = median(samples[mode]);
  console.log(
    `| ${label[mode]} | ${Math.round(m)} | ${samples[mode].map(Math.round).join(', ')} | ${(m / base).toFixed(2)}× |`,
  );
}
