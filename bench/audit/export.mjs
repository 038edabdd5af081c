// Audit-export benchmark (issue 17 item 8): GET /identity/v1/organizations/{id}/audit-events/export
// of an organization with 1,000,000 audit events and of one with 100,000, on the PostgreSQL server,
// streamed over HTTP and read to the end (lines counted, the trailer checked: every event, complete).
// The server runs in a child process (bench/audit/export-server.mjs) whose RSS (/proc/<pid>/status
// VmRSS) is sampled every 20 ms during each export: flat memory = the same peak at 100k and 1M.
// Reports the median events/s of --rounds exports per format and size (after one warm-up each).
// Also reported: the CPU time of the PostgreSQL backends of the server's database (they build the
// lines: libs/identity-mikro-orm/src/store/identity-audit-export.reads.ts) and of this bench client,
// all three sharing the same cores.
// Target: ≥ 100,000 events/s at 1M.
// Usage: node scripts/build.mjs --no-types && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/audit/export.mjs [--events 1000000] [--small 100000] [--rounds 5]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { clearInterval, setInterval } from 'node:timers';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

if (!process.env.DATABASE_URL) throw new Error('bench/audit/export runs on a PostgreSQL server: set DATABASE_URL');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const EVENTS = arg('events', 1_000_000);
const SMALL = arg('small', 100_000);
const ROUNDS = arg('rounds', 5);
const FORMATS = ['ndjson', 'csv'];

const server = spawn(
  process.execPath,
  [
    fileURLToPath(new URL('./export-server.mjs', import.meta.url)),
    '--events',
    String(EVENTS),
    '--small',
    String(SMALL),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
);
const ready = JSON.parse(
  await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`export server exited with ${code}`)));
  }),
);
process.stderr.write(`seeded ${SMALL} + ${EVENTS} events in ${ready.seedSeconds.toFixed(1)} s\n`);

const KIB = 1024;
const status = (field) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) * KIB;

/** The server's CPU time so far (user + system, /proc/<pid>/stat), in seconds. */
const cpuSeconds = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

// The PostgreSQL backends of the server's database (it builds the export lines): their CPU time from
// /proc/<pid>/stat (the server runs on this machine), each pid's growth over an export.
const monitor = new pg.Client({ connectionString: process.env.DATABASE_URL });
await monitor.connect();
async function databaseCpu() {
  const { rows } = await monitor.query('select pid from pg_stat_activity where datname = $1', [ready.database]);
  const seconds = new Map();
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The backend ended meanwhile.
    }
  }
  return seconds;
}
const cpuGrowth = (before, after) => [...after].reduce((sum, [pid, s]) => sum + s - (before.get(pid) ?? 0), 0);

/** One export read to the end: events/s, the server's CPU time and its peak VmRSS while it streamed. */
async function exportOnce(organizationId, format, expected) {
  let peak = status('VmRSS');
  const cpu0 = cpuSeconds();
  const database0 = await databaseCpu();
  const client0 = process.cpuUsage();
  const sampler = setInterval(() => (peak = Math.max(peak, status('VmRSS'))), 20);
  const t0 = performance.now();
  // node:http, not fetch: the client shares the 2 cores with the server, and a raw socket stream
  // costs it the least.
  const res = await new Promise((resolve, reject) =>
    http
      .get(
        `http://127.0.0.1:${ready.port}/identity/v1/organizations/${organizationId}/audit-events/export?format=${format}`,
        { headers: { cookie: ready.cookie } },
        resolve,
      )
      .once('error', reject),
  );
  if (res.statusCode !== 200) throw new Error(`${format}: ${res.statusCode}`);
  let lines = 0;
  let bytes = 0;
  let tail = Buffer.alloc(0);
  for await (const chunk of res) {
    bytes += chunk.byteLength;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    tail = Buffer.concat([tail, chunk]).subarray(-512);
  }
  const seconds = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(client0);
  clearInterval(sampler);
  peak = Math.max(peak, status('VmRSS'));
  const trailer = tail.toString('utf8').trimEnd().split('\n').at(-1);
  const complete = format === 'ndjson' ? JSON.parse(trailer).trailer.complete : / complete=true$/.test(trailer);
  // NDJSON: events + trailer; CSV: header + events + trailer.
  const events = lines - (format === 'csv' ? 2 : 1);
  if (events !== expected || !complete) throw new Error(`${format}: ${events} events, trailer ${trailer}`);
  return {
    rate: events / seconds,
    seconds,
    peak,
    bytes,
    cpu: cpuSeconds() - cpu0,
    clientCpu: (client.user + client.system) / 1e6,
    databaseCpu: cpuGrowth(database0, await databaseCpu()),
  };
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const loadAtStart = loadAverage();
try {
  const idle = status('VmRSS');
  const sizeLabel = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
  const sizes = [
    [sizeLabel(SMALL), ready.small, SMALL],
    [sizeLabel(EVENTS), ready.large, EVENTS],
  ];
  const results = {};
  const expectedOf = Object.fromEntries(sizes.map(([label, , expected]) => [label, expected]));
  for (let round = -1; round < ROUNDS; round++) {
    for (const format of round % 2 === 0 ? FORMATS : [...FORMATS].reverse()) {
      for (const [label, organizationId, expected] of sizes) {
        const run = await exportOnce(organizationId, format, expected);
        process.stderr.write(
          `round ${round} ${format} ${label}: ${Math.round(run.rate)} events/s, peak ${(run.peak / 2 ** 20).toFixed(1)} MiB\n`,
        );
        if (round < 0) continue;
        (results[`${format} ${label}`] ??= []).push(run);
      }
    }
  }
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
  console.log(`# Audit-export benchmark — ${new Date().toISOString()}`);
  console.log(
    `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}; PostgreSQL ${ready.postgres} (DATABASE_URL); ` +
      `organizations of ${SMALL.toLocaleString('en')} and ${EVENTS.toLocaleString('en')} events (seeded in ${ready.seedSeconds.toFixed(1)} s); ` +
      `median of ${ROUNDS} sequential exports per row after one warm-up; server RSS idle after seeding ${mib(idle)} MiB; ` +
      `load average (1/5/15 min) ${loadAtStart} at the first export, ${loadAverage()} at the end\n`,
  );
  console.log(
    `Command: \`node scripts/build.mjs --no-types && DATABASE_URL=… node bench/audit/export.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\`\n`,
  );
  console.log(
    '| export | events | median events/s | median s | server CPU s (median) | events per server CPU-second | PostgreSQL CPU s (median) | bench client CPU s (median) | body MiB | server peak RSS (max of runs) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [key, runs] of Object.entries(results)) {
    const [format, label] = key.split(' ');
    const cpu = median(runs.map((r) => r.cpu));
    console.log(
      `| ${format} | ${label} | ${Math.round(median(runs.map((r) => r.rate))).toLocaleString('en')} | ${median(runs.map((r) => r.seconds)).toFixed(2)} | ${cpu.toFixed(2)} | ${Math.round(expectedOf[label] / cpu).toLocaleString('en')} | ${median(runs.map((r) => r.databaseCpu)).toFixed(2)} | ${median(runs.map((r) => r.clientCpu)).toFixed(2)} | ${mib(runs[0].bytes)} | ${mib(Math.max(...runs.map((r) => r.peak)))} MiB |`,
    );
  }
  const rate = Math.min(...FORMATS.map((f) => median(results[`${f} ${sizeLabel(EVENTS)}`].map((r) => r.rate))));
  const peak = (label) => Math.max(...FORMATS.flatMap((f) => results[`${f} ${label}`].map((r) => r.peak)));
  console.log(`\nServer VmHWM (whole life, boot and seeding included): ${mib(status('VmHWM'))} MiB`);
  console.log(
    `Peak RSS ${sizeLabel(EVENTS)} / ${sizeLabel(SMALL)} = ${(peak(sizeLabel(EVENTS)) / peak(sizeLabel(SMALL))).toFixed(2)}×; slowest format at ${sizeLabel(EVENTS)}: ${Math.round(rate).toLocaleString('en')} events/s (target ≥ 100,000): ${rate >= 100_000 ? 'met' : 'NOT met'}`,
  );
} finally {
  await monitor.end();
  server.kill('SIGTERM');
}
