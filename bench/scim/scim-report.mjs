// The Markdown report of bench/scim: per phase the rounds and medians of each side (operations/s,
// p50/p99 client latency, server CPU and SQL statements per operation and, for Tessera, store calls
// and time per operation), the ratios Tessera / Better Auth, the competitor's refusal of the compound filter
// and the targets (filtered list p50 < 10 ms; PATCH p99 < 50 ms at the bench's concurrency).
import { medianOf, storeMethodsPerOperation } from '../support/bench-report.mjs';

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const x2 = (ratio) => `${ratio.toFixed(2)}×`;
const verdict = (ok) => (ok ? 'met' : 'NOT met');
const KEYS = ['perSecond', 'p50', 'p99', 'cpuMs', 'statements', 'storeMs', 'storeCalls', 'clientCpuMs'];

const PHASES = [
  ['listSerial', 'Filtered list, one client: GET /Users?filter=userName eq "<random existing user>"', 'requests'],
  ['list', 'Filtered list: GET /Users?filter=userName eq "<random existing user>"', 'requests'],
  [
    'compound',
    'Compound filter: (userName sw … or externalId eq …) and active eq true and emails[type eq "work" and value co "@example.org"]',
    'requests',
  ],
  [
    'compoundSerial',
    'Compound filter, one client: (userName sw … or externalId eq …) and active eq true and emails[type eq "work" and value co "@example.org"]',
    'requests',
  ],
  ['userPatch', 'User PATCH: replace displayName, each on another user', 'PATCHes'],
  ['groupStorm', 'Group PATCH storm: add then remove one member per PATCH (Okta shapes) over the groups', 'PATCHes'],
];

function table(name, unit, list) {
  const med = Object.fromEntries(KEYS.map((key) => [key, medianOf(list, key)]));
  const tessera = name === 'Tessera';
  const storm = list[0]?.exact !== undefined;
  const compound = list[0]?.failures !== undefined;
  const failures = (counts) =>
    Object.keys(counts).length === 0
      ? 'none'
      : Object.entries(counts)
          .map(([status, count]) => `${count} × ${status}`)
          .join(', ');
  const sizes = (r) =>
    r.exact === undefined ? '' : `${r.exact ? 'as before' : r.sizes.join('/')}; ${r.conflicts} × 409 retried`;
  const row = (label, r) =>
    `| ${label} | ${r.completions ?? ''} | ${Math.round(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} | ${f2(r.cpuMs)} | ${f1(r.statements)} |` +
    (tessera ? ` ${f2(r.storeMs)} (${f1(r.storeCalls)} calls) |` : '') +
    (storm ? ` ${sizes(r)} |` : '') +
    (compound ? ` ${r.failures === undefined ? '' : failures(r.failures)} |` : '');
  console.log(`\n${name}:\n`);
  console.log(
    `| round | ${unit} | ${unit}/s | p50 ms | p99 ms | server CPU ms / op | SQL statements / op |` +
      (tessera ? ' store ms / op |' : '') +
      (storm ? ' group sizes after; conflicts |' : '') +
      (compound ? ' answers other than 200 |' : ''),
  );
  console.log(`|---|---:|---:|---:|---:|---:|---:|${tessera ? '---:|' : ''}${storm || compound ? '---|' : ''}`);
  list.forEach((r, i) => console.log(row(String(i + 1), r)));
  console.log(row('**median**', med));
  if (tessera) console.log(`\nStore by method (ms per operation, all rounds): ${storeMethodsPerOperation(list)}.`);
  console.log(`Load generator: ${f2(med.clientCpuMs)} ms CPU per operation.`);
  return med;
}

/** Prints the report of one run to stdout. */
export function printScimReport({ header, concurrency, results, names, competitorPostgres, refusal }) {
  console.log(`# SCIM benchmark — ${new Date().toISOString()}`);
  console.log(`${header}\n`);
  if (competitorPostgres !== undefined)
    console.log(
      `Competitor: Better Auth 1.7.5 with @better-auth/scim 1.7.5 (managed connection token), PostgreSQL ${competitorPostgres}, pool 20, rate limiter off.`,
    );
  const medians = {};
  for (const [phase, title, unit] of PHASES) {
    console.log(`\n### ${title}`);
    medians[phase] = names.map((name, s) =>
      results[s][phase].length === 0 ? undefined : table(name, unit, results[s][phase]),
    );
    const [t, c] = medians[phase];
    if (c !== undefined)
      console.log(
        `\nTessera / Better Auth (medians): ${unit}/s ${x2(t.perSecond / c.perSecond)}; p50 ${x2(t.p50 / c.p50)}, ` +
          `p99 ${x2(t.p99 / c.p99)} (lower is faster); server CPU per operation ${x2(t.cpuMs / c.cpuMs)}.`,
      );
    else if (phase.startsWith('compound') && refusal !== undefined)
      console.log(`\nBetter Auth refuses this filter: HTTP ${refusal.status} ${refusal.body}`);
  }
  const [list] = medians.list;
  const [compound] = medians.compound;
  const [listSerial] = medians.listSerial;
  const [compoundSerial] = medians.compoundSerial;
  const [userPatch] = medians.userPatch;
  const [groupStorm] = medians.groupStorm;
  console.log(
    `\n**Targets (Tessera):** filtered list p50 at concurrency ${concurrency} ${f1(list.p50)} ms (userName eq) and ` +
      `${f1(compound.p50)} ms (compound), target < 10 ms: ${verdict(list.p50 < 10 && compound.p50 < 10)}; with one client ` +
      `${f1(listSerial.p50)} ms and ${f1(compoundSerial.p50)} ms: ${verdict(listSerial.p50 < 10 && compoundSerial.p50 < 10)}. ` +
      `PATCH p99 at concurrency ${concurrency}: ` +
      `group storm ${f1(groupStorm.p99)} ms, user ${f1(userPatch.p99)} ms, target < 50 ms: ` +
      `${verdict(groupStorm.p99 < 50 && userPatch.p99 < 50)}.`,
  );
}
