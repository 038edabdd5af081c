// Database-fault benchmark: the built demo (default wait bounds) on the PostgreSQL server named by
// DATABASE_URL (a fresh database), behind the in-process TCP proxy of @tessera/database. A steady
// stream of requests (GET /identity/v1/me with a session cookie, /identity/v1/client-config,
// /health, POST /identity/v1/passkeys/authentication/start) runs while the proxy freezes the
// database for --frozen seconds and thaws it, --runs times. Per run: time from the freeze to the
// first 503, the slowest answer while frozen, time from the thaw to the first normal answer and to
// the last abnormal one, and requests lost (no HTTP answer at all). Prints medians.
// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/faults/run.mjs [--runs 5] [--frozen 6] [--clients 4]
import 'reflect-metadata';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { createTestDatabase, startTcpProxy } from '@tessera/database';
import { AppModule } from '../../dist/apps/demo/src/app.module.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const runs = arg('runs', 5);
const frozenSeconds = arg('frozen', 6);
const clients = arg('clients', 4);
if (!process.env.DATABASE_URL) throw new Error('bench/faults runs on a PostgreSQL server: set DATABASE_URL');

const SECRET = 'bench-faults-bootstrap-secret';
const ORIGIN = 'http://localhost:3000';
const database = await createTestDatabase({ prefix: 'tessera_bench' });
const proxy = await startTcpProxy(database.url);
const app = await NestFactory.create(
  AppModule.forRoot({ databaseUrl: proxy.url, env: { TESSERA_BOOTSTRAP_SECRET: SECRET } }),
  { logger: false },
);
await app.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const boot = await fetch(`${base}/identity/v1/bootstrap`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin: ORIGIN },
  body: JSON.stringify({
    secret: SECRET,
    displayName: 'Bench Owner',
    primaryEmail: 'owner@example.com',
    organizationName: 'Bench',
    organizationSlug: 'bench',
  }),
});
if (boot.status !== 201) throw new Error(`bootstrap answered ${boot.status}`);
const cookie = boot.headers.getSetCookie()[0].split(';')[0];

// Each request with the statuses it answers while the database answers.
const REQUESTS = [
  { path: '/identity/v1/me', init: { headers: { cookie } }, normal: [401] },
  { path: '/identity/v1/client-config', init: {}, normal: [200] },
  { path: '/health', init: {}, normal: [200] },
  {
    path: '/identity/v1/passkeys/authentication/start',
    init: { method: 'POST', headers: { origin: ORIGIN } },
    normal: [200, 429], // 429 once the stream exhausts the start limit: decided on the database too
  },
];

/** Sends requests back to back from `clients` loops until `stop()`; records every answer. */
function load() {
  const log = [];
  let running = true;
  const loop = async (offset) => {
    for (let i = offset; running; i++) {
      const request = REQUESTS[i % REQUESTS.length];
      const sent = performance.now();
      let status = 0;
      try {
        const res = await fetch(base + request.path, { ...request.init, signal: globalThis.AbortSignal.timeout(15000) });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        // No HTTP answer: lost (status stays 0).
      }
      log.push({ path: request.path, sent, done: performance.now(), status, normal: request.normal.includes(status) });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Array.from({ length: clients }, (_, i) => loop(i));
  return { log, stop: async () => ((running = false), await Promise.all(loops)) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const results = [];
for (let run = 0; run < runs; run++) {
  const { log, stop } = load();
  await sleep(2000);
  const frozeAt = performance.now();
  proxy.freeze();
  await sleep(frozenSeconds * 1000);
  const thawedAt = performance.now();
  proxy.thaw();
  await sleep(6000);
  await stop();
  const during = log.filter((r) => r.sent >= frozeAt && r.sent < thawedAt);
  const answeredFrozen = during.filter((r) => r.done < thawedAt);
  const first503 = Math.min(...answeredFrozen.filter((r) => r.status === 503).map((r) => r.done));
  const firstNormal = Math.min(...log.filter((r) => r.done >= thawedAt && r.normal).map((r) => r.done));
  const abnormalAfterThaw = log.filter((r) => r.sent >= thawedAt && !r.normal);
  results.push({
    toFirst503: first503 - frozeAt,
    slowestWhileFrozen: Math.max(...during.map((r) => r.done - r.sent)),
    // Of the requests sent while frozen, those answered before the thaw (the later ones are answered normally after it).
    all503WhileFrozen: answeredFrozen.every((r) => r.status === 503),
    toFirstNormal: firstNormal - thawedAt,
    recovered: abnormalAfterThaw.length === 0 ? 0 : Math.max(...abnormalAfterThaw.map((r) => r.done)) - thawedAt,
    lost: log.filter((r) => r.status === 0).length,
    requests: log.length,
  });
  const tally = (rows) =>
    rows.reduce((t, r) => ({ ...t, [`${r.path} ${r.status}`]: (t[`${r.path} ${r.status}`] ?? 0) + 1 }), {});
  process.stderr.write(`run ${run + 1}/${runs}: ${JSON.stringify(results.at(-1))}\n`);
  process.stderr.write(`  while frozen: ${JSON.stringify(tally(during))}\n`);
  process.stderr.write(`  abnormal after the thaw: ${JSON.stringify(tally(abnormalAfterThaw))}\n`);
  await sleep(1000);
}
await app.close();
await proxy.close();
await database.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${Math.round(x)} ms`;
const column = (key) => results.map((r) => r[key]);
console.log(`# Database-fault benchmark — ${new Date().toISOString()}`);
console.log(
  `${os.cpus()[0]?.model} × ${os.cpus().length}, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`${runs} runs, ${clients} client loops, frozen ${frozenSeconds} s per run`);
console.log(
  `time to first 503 after the freeze: median ${ms(median(column('toFirst503')))} (${column('toFirst503').map(ms).join(', ')})`,
);
console.log(
  `slowest answer while frozen: median ${ms(median(column('slowestWhileFrozen')))} (${column('slowestWhileFrozen').map(ms).join(', ')})`,
);
console.log(`every request answered while frozen answered 503: ${column('all503WhileFrozen').join(', ')}`);
const line = (label, key) =>
  console.log(`${label}: median ${ms(median(column(key)))} (${column(key).map(ms).join(', ')})`);
line('time from the thaw to the first normal answer', 'toFirstNormal');
line('last abnormal answer to a request sent after the thaw (0 = none)', 'recovered');
console.log(
  `requests lost (no HTTP answer): median ${median(column('lost'))} (${column('lost').join(', ')}) of ${column('requests').join(', ')}`,
);
