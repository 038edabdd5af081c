// Audit-events benchmark: one organization with 1,000,000 audit events on the PostgreSQL server
// (bulk-inserted with generate_series, four events per instant), then GET
// /identity/v1/organizations/{id}/audit-events?limit=100 for the first page and for the page reached
// by a cursor 10,000 pages deep, median of 20 requests each (interleaved, after a warm-up), plus the
// same depth with OFFSET in SQL for comparison. Target: deep page ≤ 1.5× first page.
// Usage: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/audit/run.mjs [--events 1000000] [--requests 20]
import 'reflect-metadata';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase } from '@tessera/database';
import { encodeAuditCursor } from '@tessera/identity';
// White-box access for the bench only: the kernel (keys, raw store) is not part of the public API.
import { IDENTITY_KERNEL } from '../../libs/identity/dist/identity.tokens.js';
import { benchIdentity, benchPasskeySession } from '../support/identity-bench.mjs';
import { auditBenchApp, SEED_AUDIT_EVENTS } from '../support/audit-bench.mjs';
// The seeding helper only (the testing lib's index also loads the Jest conformance suite).
import { IdentityTestRows } from '@tessera/identity-testing/seed';

if (!process.env.DATABASE_URL) throw new Error('bench/audit runs on a PostgreSQL server: set DATABASE_URL');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const EVENTS = arg('events', 1_000_000);
const REQUESTS = arg('requests', 20);
const LIMIT = 100;
const DEPTH = 10_000;
if (EVENTS < DEPTH * LIMIT) throw new Error(`--events must be at least ${DEPTH * LIMIT} for a page ${DEPTH} deep`);

const identity = benchIdentity();
const database = await createTestDatabase({ prefix: 'tessera_bench' });

// Seeding a million events takes longer than the default statement and query bounds.
const app = await auditBenchApp(identity, database.url, { timeouts: { statementMs: 0, queryMs: 0 } });
try {
  const kernel = app.get(IDENTITY_KERNEL);
  const rows = new IdentityTestRows(app.get(MikroORM).em);
  const userId = await rows.user({ at: new Date() });
  const organizationId = await rows.organization();
  await rows.membership(organizationId, userId, { role: 'admin' });
  const issued = await benchPasskeySession(kernel, rows, userId);

  let started = performance.now();
  await rows.sql(SEED_AUDIT_EVENTS, [organizationId, 1780272000000, EVENTS]);
  await rows.sql('analyze tessera_identity.audit_events');
  const seedSeconds = (performance.now() - started) / 1000;
  process.stderr.write(`seeded ${EVENTS} events in ${seedSeconds.toFixed(1)} s\n`);

  const ORDER = 'order by occurred_at desc, id desc';
  const FROM = `from tessera_identity.audit_events where organization_id = ?`;
  // The last event of page DEPTH - 1: its cursor reaches page DEPTH.
  const [anchor] = await rows.sql(
    `select id, (extract(epoch from occurred_at) * 1000)::bigint as ms ${FROM} ${ORDER} offset ? limit 1`,
    [organizationId, (DEPTH - 1) * LIMIT - 1],
  );
  const anchorAt = new Date(Number(anchor.ms));
  const cursor = encodeAuditCursor({ organizationId, occurredAt: anchorAt, eventId: anchor.id });

  const base = `http://127.0.0.1:${app.getHttpServer().address().port}/identity/v1/organizations/${organizationId}/audit-events`;
  const headers = { cookie: `__Host-tessera_session=${issued.cookieToken}` };
  const targets = {
    first: `${base}?limit=${LIMIT}`,
    deep: `${base}?limit=${LIMIT}&cursor=${cursor}`,
  };
  const pages = {};
  for (const [name, url] of Object.entries(targets)) {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    pages[name] = (await res.json()).events.map((e) => e.id);
  }
  const offsetIds = (
    await rows.sql(`select id ${FROM} ${ORDER} offset ? limit ?`, [organizationId, (DEPTH - 1) * LIMIT, LIMIT])
  ).map((r) => r.id);
  if (pages.deep.length !== LIMIT || pages.deep.join() !== offsetIds.join())
    throw new Error('the cursor page differs from the OFFSET page of the same depth');

  const sqlTargets = {
    'SQL keyset, first page': [`select * ${FROM} ${ORDER} limit ?`, [organizationId, LIMIT + 1]],
    'SQL keyset, page 10,000': [
      `select * ${FROM} and (occurred_at, id) < (?::timestamptz, ?::uuid) ${ORDER} limit ?`,
      [organizationId, anchorAt.toISOString(), anchor.id, LIMIT + 1],
    ],
    'SQL OFFSET, page 10,000': [
      `select * ${FROM} ${ORDER} offset ? limit ?`,
      [organizationId, (DEPTH - 1) * LIMIT, LIMIT + 1],
    ],
  };
  const samples = Object.fromEntries([...Object.keys(targets), ...Object.keys(sqlTargets)].map((k) => [k, []]));
  const time = async (work) => {
    const t0 = performance.now();
    await work();
    return performance.now() - t0;
  };
  for (let round = -3; round < REQUESTS; round++) {
    const order = round % 2 === 0 ? Object.keys(targets) : Object.keys(targets).reverse();
    for (const name of order) {
      const ms = await time(async () => {
        const res = await fetch(targets[name], { headers });
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
        await res.arrayBuffer();
      });
      if (round >= 0) samples[name].push(ms);
    }
    for (const [name, [text, params]] of Object.entries(sqlTargets)) {
      const ms = await time(() => rows.sql(text, params));
      if (round >= 0) samples[name].push(ms);
    }
  }
  const [plan] = await rows.sql(
    `explain (analyze, buffers, format json) ${sqlTargets['SQL keyset, page 10,000'][0]}`,
    sqlTargets['SQL keyset, page 10,000'][1],
  );
  const node = JSON.parse(JSON.stringify(plan['QUERY PLAN']))[0].Plan;
  const scan = node.Plans?.[0] ?? node;

  const median = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const m = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
  const [server] = await rows.sql('show server_version');
  console.log(`# Audit-events benchmark — ${new Date().toISOString()}`);
  console.log(
    `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}; PostgreSQL ${server.server_version} (DATABASE_URL); ` +
      `${EVENTS.toLocaleString('en')} events in one organization (seeded in ${seedSeconds.toFixed(1)} s); limit ${LIMIT}; median of ${REQUESTS} sequential requests each after 3 warm-up rounds\n`,
  );
  console.log(
    `Command: \`npm run build && DATABASE_URL=… node bench/audit/run.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\`\n`,
  );
  console.log('| request | median ms | ratio to first page |');
  console.log('|---|---:|---:|');
  const row = (label, key, reference) =>
    console.log(`| ${label} | ${m[key].toFixed(2)} | ${(m[key] / m[reference]).toFixed(2)}× |`);
  row('GET …/audit-events?limit=100 (first page)', 'first', 'first');
  row(`GET …/audit-events?limit=100&cursor=… (page ${DEPTH.toLocaleString('en')})`, 'deep', 'first');
  row('SQL keyset, first page', 'SQL keyset, first page', 'SQL keyset, first page');
  row(`SQL keyset, page ${DEPTH.toLocaleString('en')}`, 'SQL keyset, page 10,000', 'SQL keyset, first page');
  row(
    `SQL OFFSET ${((DEPTH - 1) * LIMIT).toLocaleString('en')}, page ${DEPTH.toLocaleString('en')}`,
    'SQL OFFSET, page 10,000',
    'SQL keyset, first page',
  );
  console.log(
    `\nDeep keyset plan: ${scan['Node Type']} using ${scan['Index Name'] ?? '-'}, index cond ${scan['Index Cond'] ?? '-'}, ` +
      `${scan['Shared Hit Blocks'] + (scan['Shared Read Blocks'] ?? 0)} buffers`,
  );
  const ratio = m.deep / m.first;
  console.log(
    `\ndeep / first page over HTTP = ${ratio.toFixed(2)}× (target ≤ 1.5×): ${ratio <= 1.5 ? 'met' : 'NOT met'}`,
  );
} finally {
  await app.close();
  await database.close();
}
