#!/usr/bin/env node
// Router micro-benchmark: Tessera's radix router vs. other JS routers on a
// GitHub-API-sized route table. See bench/router/README.md.
//
//   node bench/router/run.mjs [--rounds 5] [--duration-ms 300] [--warmup-ms 300]
//                             [--builds 25] [--only name,name] [--workloads key,key]
//                             [--no-tessera] [--out bench/router/out/latest.json]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { githubRoutes } from './github-routes.mjs';
import {
  buildRouteTable,
  normalizeParamNames,
  createReferenceMatcher,
  buildWorkloads,
  WORKLOADS,
} from './workloads.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BASELINE = 'find-my-way';
const TESSERA_FILE = path.join(HERE, 'tessera-adapter.mjs');

// No forced GC between samples: a full GC makes V8 throw away optimized code
// that embeds objects which died ("weak objects" deopts), and re-optimizing
// some routers (find-my-way's compiled mode: several large generated
// functions) takes hundreds of ms, so forcing one per sample would measure
// re-warm-up instead of steady-state lookups. Each timed sample is preceded
// by a short untimed re-warm instead.

const log = (...args) => console.error(...args);

// ------------------------------------------------------------------ args ---

function parseArgs(argv) {
  const opts = {
    rounds: 5,
    durationMs: 300,
    warmupMs: 300,
    builds: 25,
    only: null,
    workloads: null,
    tessera: true,
    out: path.join(HERE, 'out', 'latest.json'),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
      return n;
    };
    switch (flag) {
      case '--rounds':
        opts.rounds = int();
        break;
      case '--duration-ms':
        opts.durationMs = int();
        break;
      case '--warmup-ms':
        opts.warmupMs = int();
        break;
      case '--builds':
        opts.builds = int();
        break;
      case '--only':
        opts.only = value()
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean);
        break;
      case '--workloads':
        opts.workloads = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--no-tessera':
        opts.tessera = false;
        break;
      case '--out':
        opts.out = path.resolve(value());
        break;
      case '-h':
      case '--help':
        console.log(
          fs
            .readFileSync(fileURLToPath(import.meta.url), 'utf8')
            .split('\n')
            .slice(1, 7)
            .join('\n')
            .replace(/^\/\/ ?/gm, ''),
        );
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  if (opts.workloads) {
    const known = new Set(WORKLOADS.map((w) => w.key));
    for (const w of opts.workloads)
      if (!known.has(w)) throw new Error(`unknown workload ${w} (known: ${[...known].join(', ')})`);
  }
  return opts;
}

// -------------------------------------------------------------- adapters ---

async function loadAdapters(opts, notes) {
  const files = [];
  if (!opts.tessera) {
    notes.push('Tessera adapter skipped (--no-tessera).');
  } else if (fs.existsSync(TESSERA_FILE)) {
    files.push(TESSERA_FILE);
  } else {
    const msg = `Tessera adapter not found (${path.relative(process.cwd(), TESSERA_FILE)}): Tessera skipped.`;
    log(msg);
    notes.push(msg);
  }
  const dir = path.join(HERE, 'adapters');
  for (const f of fs.readdirSync(dir).sort()) {
    if (f.endsWith('.mjs') && !f.startsWith('_')) files.push(path.join(dir, f));
  }

  const adapters = [];
  const failed = [];
  for (const file of files) {
    const rel = path.relative(HERE, file);
    try {
      const mod = await import(pathToFileURL(file).href);
      const adapter = mod.default;
      if (!adapter || typeof adapter.name !== 'string' || typeof adapter.create !== 'function') {
        throw new Error('default export must be { name: string, create(routes) }');
      }
      adapters.push({ file: rel, adapter, tessera: file === TESSERA_FILE });
    } catch (err) {
      const hint = file === TESSERA_FILE ? ' (did you run `npm run build`?)' : '';
      log(`! ${rel}: failed to import: ${errText(err)}${hint}`);
      failed.push({ name: rel, file: rel, status: 'import-failed', error: `${errText(err)}${hint}` });
    }
  }
  // Row order: Tessera, the find-my-way baseline, then everything else by file name.
  const rank = (a) => (a.tessera ? 0 : a.adapter.name === BASELINE ? 1 : a.adapter.name.startsWith(BASELINE) ? 2 : 3);
  adapters.sort((a, b) => rank(a) - rank(b));
  if (opts.only) {
    return {
      adapters: adapters.filter(
        (a) => a.adapter.name === BASELINE || opts.only.some((o) => a.adapter.name.toLowerCase().includes(o)),
      ),
      failed,
    };
  }
  return { adapters, failed };
}

const errText = (err) => {
  const kind = err && (err.name !== 'Error' ? err.name : err.constructor && err.constructor.name);
  return kind && kind !== 'Error' ? `${kind}: ${err.message}` : String(err && err.message);
};

/** create() with the table as is; if that throws, with parameter names normalised. */
function instantiate(adapter, routes, normalized) {
  const tryCreate = (table) => {
    const instance = adapter.create(table);
    if (!instance || typeof instance.lookup !== 'function')
      throw new Error('create() must return { lookup(method, path) }');
    return instance;
  };
  let firstError;
  try {
    return { instance: tryCreate(routes), table: 'original', tableRoutes: routes };
  } catch (err) {
    firstError = err;
  }
  try {
    const instance = tryCreate(normalized.routes);
    return { instance, table: 'normalized', tableRoutes: normalized.routes, originalError: errText(firstError) };
  } catch (err) {
    return { error: `original table: ${errText(firstError)} | normalized table: ${errText(err)}` };
  }
}

// --------------------------------------------------------- correctness ----

function describe(r) {
  if (r === null) return 'null';
  if (r === undefined) return 'undefined';
  const route = r.handler && handlerToRoute.get(r.handler);
  const params = r.params && typeof r.params === 'object' ? JSON.stringify(Object.values(r.params)) : String(r.params);
  return `${route ? `${route.method} ${route.path}` : `unknown handler (${typeof r.handler})`} params ${params}`;
}

// Params pass if the values match either by the names of the table the
// router was given (original or normalized), whatever the key order, or
// position by position (for a router that reports other names).
function paramsMatch(params, names, values) {
  const got = Object.values(params);
  if (got.length !== values.length) return false;
  if (names.every((name, i) => params[name] === values[i])) return true;
  return got.every((v, i) => v === values[i]);
}

function checkOne(instance, req, pathString, namesByHandler) {
  let r;
  try {
    r = instance.lookup(req.method, pathString);
  } catch (err) {
    return `threw ${errText(err)}`;
  }
  if (req.expected === null) return r === null ? null : `expected no match, got ${describe(r)}`;
  if (r === null || typeof r !== 'object')
    return `expected ${req.expected.method} ${req.expected.path}, got ${describe(r)}`;
  if (r.handler !== req.expected.handler)
    return `expected ${req.expected.method} ${req.expected.path}, got ${describe(r)}`;
  if (r.params === null || typeof r.params !== 'object') return `params is ${r.params}`;
  if (!paramsMatch(r.params, namesByHandler.get(r.handler), req.values)) {
    return `expected params ${JSON.stringify(req.values)}, got ${JSON.stringify(r.params)}`;
  }
  return null;
}

// ---------------------------------------------------------------- timing ---

// One freshly compiled loop per (router, workload): nothing (type feedback,
// inlining decisions) is shared between routers through the harness.
// The loop only reads pre-built arrays; results go to a sink so no lookup
// can be optimised away.
function makeRunner(fresh) {
  const body = fresh
    ? `return function run(instance, methods, buf, offsets, reps, sink) {
        const n = methods.length;
        let hits = 0, handler = null, params = null;
        for (let k = 0; k < reps; k++) {
          for (let i = 0; i < n; i++) {
            const r = instance.lookup(methods[i], buf.latin1Slice(offsets[i], offsets[i + 1]));
            if (r !== null) { hits++; handler = r.handler; params = r.params; }
          }
        }
        sink.handler = handler; sink.params = params;
        return hits;
      }`
    : `return function run(instance, methods, paths, reps, sink) {
        const n = methods.length;
        let hits = 0, handler = null, params = null;
        for (let k = 0; k < reps; k++) {
          for (let i = 0; i < n; i++) {
            const r = instance.lookup(methods[i], paths[i]);
            if (r !== null) { hits++; handler = r.handler; params = r.params; }
          }
        }
        sink.handler = handler; sink.params = params;
        return hits;
      }`;
  return new Function(body)();
}

const sink = { handler: null, params: null };
const nowNs = () => process.hrtime.bigint();

class Job {
  constructor(instance, workload) {
    this.instance = instance;
    this.workload = workload;
    this.fresh = workload.key === 'fresh';
    this.run = makeRunner(this.fresh);
    this.n = workload.methods.length;
    this.reps = 1;
  }
  batch() {
    const w = this.workload;
    const hits = this.fresh
      ? this.run(this.instance, w.methods, w.buffer, w.offsets, this.reps, sink)
      : this.run(this.instance, w.methods, w.paths, this.reps, sink);
    if (hits !== w.hits * this.reps)
      throw new Error(`hit count changed during timing: ${hits} != ${w.hits * this.reps}`);
  }
  /** Runs batches for `ms`; returns lookups per second. */
  time(ms) {
    const limit = BigInt(ms) * 1_000_000n;
    let lookups = 0;
    const start = nowNs();
    let elapsed;
    do {
      this.batch();
      lookups += this.n * this.reps;
      elapsed = nowNs() - start;
    } while (elapsed < limit);
    return lookups / (Number(elapsed) / 1e9);
  }
  /** Warm up, sizing batches to ~2 ms so the clock is read rarely. */
  warmup(ms) {
    const end = Date.now() + ms;
    do {
      const t0 = nowNs();
      this.batch();
      const dt = Number(nowNs() - t0);
      this.reps = Math.max(1, Math.min(1 << 20, Math.round((this.reps * 2e6) / Math.max(dt, 1))));
    } while (Date.now() < end);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
const rotate = (list, k) => list.map((_, i) => list[(i + k) % list.length]);

// ------------------------------------------------------------------ main ---

let handlerToRoute;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const notes = [];
  if (opts.rounds < 5) notes.push(`Only ${opts.rounds} round(s) per measurement (< 5): indicative only.`);

  const { routes, meta } = buildRouteTable(githubRoutes);
  handlerToRoute = new Map(meta.map((m) => [m.handler, m]));
  const normalized = normalizeParamNames(routes);
  const reference = createReferenceMatcher(meta);
  const allWorkloads = buildWorkloads(meta, reference);
  const workloads = WORKLOADS.filter((w) => !opts.workloads || opts.workloads.includes(w.key)).map((w) => {
    const requests = allWorkloads[w.key].requests;
    const methods = requests.map((r) => r.method);
    const paths = requests.map((r) => r.path);
    const hits = requests.filter((r) => r.expected !== null).length;
    // For "fresh": every path lives in one latin1 Buffer; each lookup decodes
    // its slice into a brand-new string.
    const offsets = new Int32Array(paths.length + 1);
    for (let i = 0; i < paths.length; i++) offsets[i + 1] = offsets[i] + paths[i].length;
    const buffer = Buffer.from(paths.join(''), 'latin1');
    return { ...allWorkloads[w.key], methods, paths, hits, offsets, buffer };
  });

  const { adapters, failed: importFailed } = await loadAdapters(opts, notes);
  log(
    `${routes.length} routes, ${adapters.length} routers, workloads: ${workloads.map((w) => `${w.key} (${w.paths.length})`).join(', ')}`,
  );

  // ---- instantiate + correctness
  const routers = [];
  const results = [...importFailed];
  for (const { file, adapter } of adapters) {
    const entry = { name: adapter.name, file, status: 'ok', table: null, workloads: {}, register: null, geomean: null };
    results.push(entry);
    const made = instantiate(adapter, routes, normalized);
    if (made.error) {
      entry.status = 'load-failed';
      entry.error = made.error;
      log(`! ${adapter.name}: cannot load the route table: ${made.error}`);
      continue;
    }
    entry.table = made.table;
    if (made.table === 'normalized') {
      entry.originalTableError = made.originalError;
      entry.renamedRoutes = normalized.renamed;
      log(`~ ${adapter.name}: rejected the original table (${made.originalError}); using the normalized table`);
    }
    const router = { adapter, entry, instance: made.instance, tableRoutes: made.tableRoutes, jobs: {} };
    const namesByHandler = new Map(
      made.tableRoutes.map((r) => [
        r.handler,
        r.path
          .split('/')
          .filter((s) => s.startsWith(':'))
          .map((s) => s.slice(1)),
      ]),
    );
    for (const w of workloads) {
      const failures = [];
      for (let i = 0; i < w.requests.length; i++) {
        const req = w.requests[i];
        const p = w.key === 'fresh' ? w.buffer.latin1Slice(w.offsets[i], w.offsets[i + 1]) : req.path;
        const problem = checkOne(made.instance, req, p, namesByHandler);
        if (problem) failures.push({ method: req.method, path: req.path, problem });
      }
      const uniqueFailures = [...new Map(failures.map((f) => [`${f.method} ${f.path}`, f])).values()];
      entry.workloads[w.key] = { status: failures.length ? 'failed-correctness' : 'ok', failures: uniqueFailures };
      if (failures.length) {
        log(
          `! ${adapter.name}: ${uniqueFailures.length} wrong result(s) in "${w.key}", excluded from it; first: ${uniqueFailures[0].method} ${uniqueFailures[0].path}: ${uniqueFailures[0].problem}`,
        );
      } else {
        router.jobs[w.key] = new Job(made.instance, w);
      }
    }
    routers.push(router);
  }

  // ---- warm-up
  log(`warm-up: ${opts.warmupMs} ms per router and workload`);
  for (const w of workloads) for (const r of routers) if (r.jobs[w.key]) r.jobs[w.key].warmup(opts.warmupMs);
  const noop = { lookup: () => null };
  const decodeBaseline = workloads.some((w) => w.key === 'fresh')
    ? new Job(noop, { ...workloads.find((w) => w.key === 'fresh'), hits: 0 })
    : null;
  if (decodeBaseline) decodeBaseline.warmup(opts.warmupMs);

  // ---- timed rounds, routers interleaved (rotated order) within each round
  const samples = new Map(routers.map((r) => [r, Object.fromEntries(workloads.map((w) => [w.key, []]))]));
  const decodeSamples = [];
  const rewarmMs = Math.max(10, Math.min(100, Math.round(opts.durationMs / 5)));
  for (let round = 0; round < opts.rounds; round++) {
    log(`round ${round + 1}/${opts.rounds}`);
    for (const w of workloads) {
      const eligible = routers.filter((r) => r.jobs[w.key]);
      for (const r of rotate(eligible, round)) {
        r.jobs[w.key].time(rewarmMs);
        samples.get(r)[w.key].push(r.jobs[w.key].time(opts.durationMs));
      }
      if (w.key === 'fresh' && decodeBaseline) {
        decodeBaseline.time(rewarmMs);
        decodeSamples.push(decodeBaseline.time(opts.durationMs));
      }
    }
  }

  // ---- registration time: create() + first lookup (lazy builds), fresh router each time
  log(`register: ${opts.builds} fresh builds per router`);
  const firstReq = allWorkloads.deep.requests[0];
  const warmBuilds = 5;
  const buildSamples = new Map(routers.map((r) => [r, []]));
  for (let b = 0; b < warmBuilds + opts.builds; b++) {
    for (const r of rotate(routers, b)) {
      const t0 = nowNs();
      const inst = r.adapter.create(r.tableRoutes);
      inst.lookup(firstReq.method, firstReq.path);
      const ms = Number(nowNs() - t0) / 1e6;
      if (b >= warmBuilds) buildSamples.get(r).push(ms);
    }
  }

  // ---- aggregate
  const baseline = routers.find((r) => r.adapter.name === BASELINE);
  for (const r of routers) {
    for (const w of workloads) {
      const s = samples.get(r)[w.key];
      if (!s.length) continue;
      const med = median(s);
      const base = baseline && samples.get(baseline)[w.key].length ? median(samples.get(baseline)[w.key]) : null;
      Object.assign(r.entry.workloads[w.key], {
        opsPerSec: { median: med, min: Math.min(...s), max: Math.max(...s), samples: s },
        ratioToBaseline: base ? med / base : null,
      });
    }
    const measured = workloads.map((w) => r.entry.workloads[w.key].opsPerSec).filter(Boolean);
    const ratios = workloads.map((w) => r.entry.workloads[w.key].ratioToBaseline).filter((x) => x != null);
    r.entry.geomean =
      measured.length === workloads.length
        ? {
            opsPerSec: geomean(measured.map((m) => m.median)),
            ratioToBaseline: ratios.length === workloads.length ? geomean(ratios) : null,
          }
        : {
            opsPerSec: null,
            ratioToBaseline: null,
            missing: workloads.filter((w) => !r.entry.workloads[w.key].opsPerSec).map((w) => w.key),
          };
    const bs = buildSamples.get(r);
    r.entry.register = {
      medianMs: median(bs),
      minMs: Math.min(...bs),
      maxMs: Math.max(...bs),
      builds: bs.length,
      samplesMs: bs,
    };
  }

  const decode = decodeSamples.length
    ? { opsPerSec: median(decodeSamples), nsPerOp: 1e9 / median(decodeSamples), samples: decodeSamples }
    : null;

  const cpus = os.cpus();
  const report = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      totalMemGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      v8: process.versions.v8,
    },
    options: {
      rounds: opts.rounds,
      durationMs: opts.durationMs,
      warmupMs: opts.warmupMs,
      rewarmMs,
      builds: opts.builds,
      only: opts.only,
      workloads: opts.workloads,
    },
    baseline: BASELINE,
    routeTable: {
      name: 'GitHub REST API v3',
      routes: routes.length,
      file: 'github-routes.mjs',
      normalizedRenames: normalized.renamed.length,
    },
    workloads: Object.fromEntries(
      workloads.map((w) => [
        w.key,
        { title: w.title, description: w.description, requests: w.paths.length, misses: w.paths.length - w.hits },
      ]),
    ),
    freshDecodeBaseline: decode,
    notes,
    routers: results,
  };

  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, JSON.stringify(report, null, 2) + '\n');
  console.log(renderMarkdown(report, workloads));
  log(`wrote ${path.relative(process.cwd(), opts.out)}`);
}

// -------------------------------------------------------------- markdown ---

function renderMarkdown(report, workloads) {
  const fmtOps = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(0)} k`);
  const fmtRatio = (x) => (x == null ? '' : ` (${x.toFixed(2)}×)`);
  const lines = [];
  const m = report.machine;
  lines.push(`## Router lookups/s — ${report.routeTable.name} table (${report.routeTable.routes} routes)`);
  lines.push('');
  lines.push(`${m.cpu} (${m.cores} cores) · Node ${m.node} · ${m.platform} · ${report.date}`);
  lines.push(
    `Median of ${report.options.rounds} rounds × ${report.options.durationMs} ms per cell (routers interleaved; warm-up ${report.options.warmupMs} ms, plus ${report.options.rewarmMs} ms untimed before each sample); ` +
      `(×) = ratio to ${report.baseline} (default mode) in this run; higher is better. Register = create() + first lookup, median of ${report.options.builds} fresh builds.`,
  );
  lines.push('');
  const header = ['router', ...workloads.map((w) => w.title), 'geomean', `register ${report.routeTable.routes} routes`];
  lines.push(`| ${header.join(' | ')} |`);
  lines.push(`|${header.map((_, i) => (i === 0 ? ':---' : '---:')).join('|')}|`);
  // Rank per workload (#1 = most lookups/s among the routers timed there).
  const timed = report.routers.filter((r) => r.status === 'ok');
  const rankOf = (router, key) =>
    1 +
    timed.filter(
      (other) =>
        other !== router &&
        other.workloads[key]?.opsPerSec &&
        other.workloads[key].opsPerSec.median > router.workloads[key].opsPerSec.median,
    ).length;
  for (const r of report.routers) {
    if (r.status !== 'ok') continue;
    const name = r.table === 'normalized' ? `${r.name} ¹` : r.name;
    const cells = workloads.map((w) => {
      const res = r.workloads[w.key];
      if (!res.opsPerSec) return res.status === 'failed-correctness' ? 'wrong results ²' : '—';
      return `${fmtOps(res.opsPerSec.median)}${fmtRatio(res.ratioToBaseline)} #${rankOf(r, w.key)}`;
    });
    const g =
      r.geomean.opsPerSec != null ? `${fmtOps(r.geomean.opsPerSec)}${fmtRatio(r.geomean.ratioToBaseline)}` : '—';
    lines.push(`| ${[name, ...cells, g, `${r.register.medianMs.toFixed(3)} ms`].join(' | ')} |`);
  }
  lines.push('');
  // @tessera/web against the best other router, per workload and on the geomean.
  const tessera = timed.find((r) => r.name === '@tessera/web');
  const peers = timed.filter((r) => r !== tessera);
  if (tessera && peers.length) {
    const parts = workloads.map((w) => {
      const best = peers
        .filter((p) => p.workloads[w.key]?.opsPerSec)
        .sort((a, b) => b.workloads[w.key].opsPerSec.median - a.workloads[w.key].opsPerSec.median)[0];
      const own = tessera.workloads[w.key]?.opsPerSec;
      return best && own
        ? `${w.title} ${(own.median / best.workloads[w.key].opsPerSec.median).toFixed(2)}× (${best.name})`
        : `${w.title} —`;
    });
    const bestGeo = peers
      .filter((p) => p.geomean?.opsPerSec != null)
      .sort((a, b) => b.geomean.opsPerSec - a.geomean.opsPerSec)[0];
    if (bestGeo && tessera.geomean?.opsPerSec != null)
      parts.push(`geomean ${(tessera.geomean.opsPerSec / bestGeo.geomean.opsPerSec).toFixed(2)}× (${bestGeo.name})`);
    lines.push(`@tessera/web ÷ best other router: ${parts.join('; ')}.`);
    lines.push('');
  }

  const normalizedRouters = report.routers.filter((r) => r.table === 'normalized');
  if (normalizedRouters.length) {
    lines.push(
      `¹ Rejected the table's inconsistent parameter names (e.g. /gists/:id vs /gists/:gist_id/comments) and was given a ` +
        `normalized copy (${report.routeTable.normalizedRenames} routes renamed; same paths, same parameter order):`,
    );
    for (const r of normalizedRouters) lines.push(`   - ${r.name}: "${r.originalTableError}"`);
  }
  const wrong = report.routers.filter(
    (r) => r.status === 'ok' && Object.values(r.workloads).some((w) => w.status === 'failed-correctness'),
  );
  if (wrong.length) {
    lines.push('² Returned a wrong result for at least one request of that workload, so it was not timed there:');
    for (const r of wrong) {
      for (const [key, w] of Object.entries(r.workloads)) {
        if (w.status !== 'failed-correctness') continue;
        const shown = w.failures.slice(0, 3).map((f) => `\`${f.method} ${f.path}\` → ${f.problem}`);
        lines.push(`   - ${r.name} / ${key}: ${w.failures.length} path(s), e.g. ${shown.join('; ')}`);
      }
    }
  }
  const unloaded = report.routers.filter((r) => r.status !== 'ok');
  if (unloaded.length) {
    lines.push('Excluded from every workload:');
    for (const r of unloaded) {
      const why =
        r.status === 'import-failed' ? 'adapter failed to import' : 'cannot load the route table, even normalized';
      lines.push(`   - ${r.name} (${why}): ${r.error}`);
    }
  }
  if (report.freshDecodeBaseline) {
    lines.push(
      `"${WORKLOADS.find((w) => w.key === 'fresh').title}" includes decoding each path from a Buffer: ` +
        `${report.freshDecodeBaseline.nsPerOp.toFixed(1)} ns per request on its own (no router).`,
    );
  }
  let worst = null;
  for (const r of report.routers) {
    for (const [key, w] of Object.entries(r.workloads ?? {})) {
      if (!w.opsPerSec) continue;
      const spread = (w.opsPerSec.max - w.opsPerSec.min) / w.opsPerSec.median;
      if (!worst || spread > worst.spread) worst = { spread, name: r.name, key };
    }
  }
  if (worst)
    lines.push(
      `Largest round-to-round spread (max−min)/median: ${(worst.spread * 100).toFixed(1)}% (${worst.name}, ${worst.key}).`,
    );
  for (const n of report.notes) lines.push(n);
  return lines.join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
