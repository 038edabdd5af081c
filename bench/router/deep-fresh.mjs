// The "deep params, one path" workload with the path as a literal (one internalized string, looked
// up again and again) and as a fresh string per lookup (decoded from a Buffer, as an HTTP server
// produces it), for @tessera/web and the compiled peers; plus `String.prototype.split` alone on both.
// Shows how much of a split-based matcher's lead on the literal comes from V8 returning a cached
// split result for a repeated internalized string.
// Usage: npm run build && node bench/router/deep-fresh.mjs [--rounds 6] [--lookups 2000000]
import { performance } from 'node:perf_hooks';
import tessera from './tessera-adapter.mjs';
import rou3Compiled from './adapters/rou3-compiled.mjs';
import findMyWayCompiled from './adapters/find-my-way-compiled.mjs';
import { githubRoutes } from './github-routes.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 6);
const lookups = arg('lookups', 2_000_000);
const PATH = '/repos/nodejs/node/pulls/42357/reviews/80/comments';
const buffer = Buffer.from(PATH, 'latin1');
const routes = githubRoutes.map((route, i) => ({ ...route, handler: () => i }));
const subjects = [tessera, rou3Compiled, findMyWayCompiled].map((adapter) => ({
  name: adapter.name,
  router: adapter.create(routes),
}));

const state = { sink: 0 };
/** A loop compiled anew for each (router, cell), so no two routers share type feedback. */
const loop = (body) =>
  new Function(
    'router',
    'PATH',
    'buffer',
    'lookups',
    'state',
    `for (let i = 0; i < lookups; i++) state.sink += ${body};`,
  );
const bodies = {
  literal: "router.lookup('GET', PATH).params.owner.length",
  fresh: "router.lookup('GET', buffer.latin1Slice(0, buffer.length)).params.owner.length",
  decode: 'buffer.latin1Slice(0, buffer.length).length',
  splitLiteral: "PATH.split('/').length",
  splitFresh: "buffer.latin1Slice(0, buffer.length).split('/').length",
};
const cells = {};
for (const { name, router } of subjects)
  for (const key of ['literal', 'fresh']) {
    const run = loop(bodies[key]);
    cells[`${name}|${key}`] = () => run(router, PATH, buffer, lookups, state);
  }
for (const key of ['decode', 'splitLiteral', 'splitFresh']) {
  const run = loop(bodies[key]);
  cells[key] = () => run(undefined, PATH, buffer, lookups, state);
}
const samples = new Map();
const sample = (key, run) => {
  const started = performance.now();
  run();
  const ns = ((performance.now() - started) * 1e6) / lookups;
  samples.set(key, [...(samples.get(key) ?? []), ns]);
};
for (let round = 0; round < rounds; round++) {
  for (const { name } of round % 2 ? [...subjects].reverse() : subjects) {
    sample(`${name}|literal`, cells[`${name}|literal`]);
    sample(`${name}|fresh`, cells[`${name}|fresh`]);
  }
  sample('decode', cells.decode);
  sample('split|literal', cells.splitLiteral);
  sample('split|fresh', cells.splitFresh);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = (key) => median(samples.get(key));
const decode = m('decode');
console.log(`# deep params, one path: literal vs fresh string — ${new Date().toISOString()}, Node ${process.version}`);
console.log(
  `\`GET ${PATH}\`; median of ${rounds} rounds × ${lookups} lookups; ns per lookup (fresh: minus the ${decode.toFixed(1)} ns decode)\n`,
);
console.log('| router | literal (one internalized string) | fresh string per lookup |');
console.log('|:---|---:|---:|');
for (const { name } of subjects)
  console.log(`| ${name} | ${m(`${name}|literal`).toFixed(1)} ns | ${(m(`${name}|fresh`) - decode).toFixed(1)} ns |`);
console.log(
  `| \`path.split('/')\` alone | ${m('split|literal').toFixed(1)} ns | ${(m('split|fresh') - decode).toFixed(1)} ns |`,
);
if (state.sink === 0) console.log('');
