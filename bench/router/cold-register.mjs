#!/usr/bin/env node
// Cold-process registration and memory per router instance (issue 16).
//
//   node bench/router/cold-register.mjs [--processes 15] [--instances 50] [--only name,name]
//
// For each router (Tessera and the adapters in ./adapters): `--processes` fresh Node processes,
// each importing the router, then timing `create(312 GitHub routes)` plus the first lookup once
// (nothing warmed up: the number a server pays at boot). Then, in one more fresh process started
// with --expose-gc, `--instances` routers are built and kept alive and the retained heap per
// instance is reported (heapUsed after a full GC, difference divided by the count). Prints a
// Markdown table: median, min and max of the cold registrations, and heap per instance.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const processes = Number(option('processes', 15));
const instances = Number(option('instances', 50));
const only = option('only', null)?.split(',');

if (args[0] === '--child') {
  // Child: args = --child <adapter file> <mode> <count>
  const [, file, mode, count] = args;
  const started = process.hrtime.bigint();
  const adapter = (await import(pathToFileURL(file).href)).default;
  const { githubRoutes } = await import('./github-routes.mjs');
  const { buildRouteTable, normalizeParamNames } = await import('./workloads.mjs');
  let { routes } = buildRouteTable(githubRoutes);
  const build = () => {
    try {
      return adapter.create(routes);
    } catch {
      routes = normalizeParamNames(routes).routes;
      return adapter.create(routes);
    }
  };
  if (mode === 'register') {
    // The first table of the process: nothing of the router's code has run yet.
    const t0 = process.hrtime.bigint();
    const instance = build();
    instance.lookup('GET', '/repos/octocat/Hello-World/issues/1347');
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(JSON.stringify({ ms, importMs: Number(t0 - started) / 1e6 }));
  } else {
    const keep = [];
    const probe = (instance) => instance.lookup('GET', '/repos/octocat/Hello-World/issues/1347');
    probe(build());
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < Number(count); i++) {
      const instance = build();
      probe(instance); // compiled routers generate their code on the first lookup
      keep.push(instance);
    }
    globalThis.gc();
    const after = process.memoryUsage().heapUsed;
    process.stdout.write(JSON.stringify({ bytesPerInstance: (after - before) / keep.length }));
  }
  process.exit(0);
}

const files = [
  path.join(HERE, 'tessera-adapter.mjs'),
  ...fs
    .readdirSync(path.join(HERE, 'adapters'))
    .filter((f) => f.endsWith('.mjs') && !f.startsWith('_'))
    .map((f) => path.join(HERE, 'adapters', f)),
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const file of files) {
  const name = (await import(pathToFileURL(file).href)).default.name;
  if (only && !only.some((o) => name.includes(o))) continue;
  const child = (flags, mode) => {
    const out = spawnSync(
      process.execPath,
      [...flags, fileURLToPath(import.meta.url), '--child', file, mode, String(instances)],
      {
        encoding: 'utf8',
      },
    );
    if (out.status !== 0) throw new Error(`${name} ${mode}: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  try {
    const times = Array.from({ length: processes }, () => child([], 'register').ms);
    const { bytesPerInstance } = child(['--expose-gc'], 'memory');
    rows.push({ name, median: median(times), min: Math.min(...times), max: Math.max(...times), bytesPerInstance });
    process.stderr.write(`${name}: ${median(times).toFixed(2)} ms, ${(bytesPerInstance / 1024).toFixed(0)} KiB\n`);
  } catch (error) {
    process.stderr.write(`${name}: ${error.message.split('\n')[0]}\n`);
  }
}
console.log(
  `| router | cold register 312 routes + first lookup (median of ${processes} processes) | min–max | heap per instance (${instances} kept) |`,
);
console.log('|:---|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.name} | ${r.median.toFixed(2)} ms | ${r.min.toFixed(2)}–${r.max.toFixed(2)} ms | ${(r.bytesPerInstance / 1024).toFixed(0)} KiB |`,
  );
