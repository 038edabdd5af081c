// The Markdown report of bench/device: per-round rows and medians of the rotation and exchange
// phases, Tessera's store calls per operation, the competitor's exchange in the same run, the ratios
// and the targets (p99 < 50 ms, ≥ 2× the competitor's throughput).
import { medianOf, storeMethodsPerOperation } from '../support/bench-report.mjs';

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const x2 = (ratio) => `${ratio.toFixed(2)}×`;

const medians = (list, keys) => Object.fromEntries(keys.map((key) => [key, medianOf(list, key)]));

function tesseraTable(title, unit, results) {
  const keys = ['perSecond', 'p50', 'p99', 'serverMs', 'storeMs', 'storeCalls', 'cpuMs', 'clientCpuMs'];
  const med = medians(results, keys);
  const row = (label, r) =>
    `| ${label} | ${r.completions ?? ''} | ${Math.round(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} | ` +
    `${f2(r.serverMs)} | ${f2(r.storeMs)} (${f1(r.storeCalls)} calls) | ${f2(r.cpuMs)} |`;
  console.log(`\n### ${title}\n`);
  console.log(
    `| round | ${unit} | ${unit}/s | p50 ms | p99 ms | server ms / op | store ms / op | server CPU ms / op |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  results.forEach((r, i) => console.log(row(String(i + 1), r)));
  console.log(row('**median**', med));
  console.log(`\nStore by method (ms per operation, all rounds): ${storeMethodsPerOperation(results)}.`);
  console.log(`Load generator: ${f2(med.clientCpuMs)} ms CPU per operation.`);
  return med;
}

/** Prints the report of one run to stdout. */
export function printDeviceReport({ header, concurrency, rotation, exchange, competitorExchange, competitorPostgres }) {
  console.log(`# Device token endpoint benchmark — ${new Date().toISOString()}`);
  console.log(`${header}\n`);
  const rot = tesseraTable('Refresh-token rotation (Tessera; POST /oauth/token, refresh_token)', 'rotations', rotation);
  const exc = tesseraTable('Device-code exchange (Tessera; POST /oauth/token, device_code)', 'exchanges', exchange);
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `\nRotation p99 = ${f1(rot.p99)} ms at concurrency ${concurrency} (target < 50 ms): ${verdict(rot.p99 < 50)}. ` +
      `Exchange p99 = ${f1(exc.p99)} ms: ${verdict(exc.p99 < 50)}.`,
  );
  if (competitorExchange === undefined) return;
  const cmed = medians(competitorExchange, ['perSecond', 'p50', 'p99', 'cpuMs', 'clientCpuMs']);
  console.log(
    `\n### Device-code exchange, competitor (same run, rounds interleaved): Better Auth 1.7.6 deviceAuthorization, ` +
      `POST /api/auth/device/token (PostgreSQL ${competitorPostgres}, pool 20, rate limiter off)\n`,
  );
  console.log('| round | exchanges | exchanges/s | p50 ms | p99 ms | server CPU ms / op |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const crow = (label, r) =>
    `| ${label} | ${r.completions ?? ''} | ${Math.round(r.perSecond)} | ${f1(r.p50)} | ${f1(r.p99)} | ${f2(r.cpuMs)} |`;
  competitorExchange.forEach((r, i) => console.log(crow(String(i + 1), r)));
  console.log(crow('**median**', cmed));
  const throughput = exc.perSecond / cmed.perSecond;
  console.log(
    `\nTessera / Better Auth, device-code exchange (medians): exchanges/s ${x2(throughput)}; p50 ${x2(exc.p50 / cmed.p50)}, ` +
      `p99 ${x2(exc.p99 / cmed.p99)} (lower is faster); server CPU per exchange ${x2(exc.cpuMs / cmed.cpuMs)}. ` +
      `Target ≥ 2×: ${verdict(throughput >= 2)}. Rotation has no Better Auth counterpart (its plugin issues no refresh token); ` +
      `Tessera rotations/s / Better Auth exchanges/s: ${x2(rot.perSecond / cmed.perSecond)} (different operations, for scale only).`,
  );
}
