// Builds the workspace: every package under libs/ to its own `dist/` (JavaScript by swc with
// decorator metadata, declarations by tsc in dependency order), then the apps into dist/apps (the
// demo, importing the packages by name like any consumer, and the executable `tessera` CLI), the
// demo's static assets, and the demo pages' browser bundles (esbuild).
//
//   node scripts/build.mjs               everything, then docs/openapi.json (what `npm run build` runs)
//   node scripts/build.mjs --no-types    skip declarations and docs (what `npm start` runs: faster)
//   node scripts/build.mjs --packages    the packages only, with declarations
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const SWC = join(ROOT, 'node_modules', '@swc', 'cli', 'bin', 'swc.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const SWCRC = join(ROOT, '.swcrc');
const PAGES_CLIENT = join('apps', 'demo', 'src', 'pages', 'client');
const PAGES_ASSETS = join('dist', 'apps', 'demo', 'src', 'public', 'assets');
// The `tessera` command (package.json `bin`): swc keeps its `#!/usr/bin/env node` line.
const CLI_MAIN = join('dist', 'apps', 'cli', 'src', 'main.js');

const args = new Set(process.argv.slice(2));
const withTypes = !args.has('--no-types');
const packagesOnly = args.has('--packages');

process.chdir(ROOT);
for (const dir of packageBuildOrder()) buildPackage(dir);
if (!packagesOnly) {
  buildApps();
  if (existsSync(PAGES_CLIENT)) await bundlePages();
  // The OpenAPI document of the identity routes, generated from the built route tables.
  if (withTypes) execFileSync(process.execPath, [join(ROOT, 'scripts', 'write-openapi.mjs')], { stdio: 'inherit' });
}

/**
 * The workspace packages under libs/, each after the `@tessera/*` packages it depends on, so
 * that tsc finds their declarations through node_modules like a consumer would.
 */
function packageBuildOrder() {
  const manifests = new Map();
  for (const dir of readdirSync('libs')) {
    const file = join('libs', dir, 'package.json');
    if (existsSync(file)) manifests.set(JSON.parse(readFileSync(file, 'utf8')).name, dir);
  }
  const order = [];
  const visiting = new Set();
  const visit = (name) => {
    const dir = manifests.get(name);
    if (dir === undefined || order.includes(dir)) return;
    if (visiting.has(name)) throw new Error(`package dependency cycle through ${name}`);
    visiting.add(name);
    const manifest = JSON.parse(readFileSync(join('libs', dir, 'package.json'), 'utf8'));
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) visit(dependency);
    order.push(dir);
  };
  for (const name of [...manifests.keys()].sort()) visit(name);
  return order;
}

function buildPackage(dir) {
  const root = join('libs', dir);
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  swc(root, ['src', '-d', 'dist', '--strip-leading-paths', '--ignore', '**/*.spec.ts']);
  if (withTypes) execFileSync(process.execPath, [TSC, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}

function buildApps() {
  rmSync('dist', { recursive: true, force: true });
  // Browser code is bundled by esbuild below, never run by Node.
  swc('.', ['apps', '-d', 'dist', '--ignore', '**/*.spec.ts', '--ignore', `${PAGES_CLIENT}/**`]);
  for (const app of readdirSync('apps')) {
    const source = join('apps', app, 'src', 'public');
    if (existsSync(source)) cpSync(source, join('dist', 'apps', app, 'src', 'public'), { recursive: true });
  }
  if (existsSync(CLI_MAIN)) chmodSync(CLI_MAIN, 0o755);
}

function swc(cwd, parameters) {
  execFileSync(process.execPath, [SWC, ...parameters, '--config-file', SWCRC, '--quiet'], { cwd, stdio: 'inherit' });
}

/**
 * One ES module per page (`*.page.mts`, shared code split into chunks) and the stylesheet, with
 * content-hashed names so the server can cache them forever; `manifest.json` maps each entry's
 * name (`identity.page.js`, `identity.css`) to its hashed file for the page templates.
 */
async function bundlePages() {
  const entryPoints = readdirSync(PAGES_CLIENT)
    .filter((name) => name.endsWith('.page.mts') || name.endsWith('.css'))
    .map((name) => join(PAGES_CLIENT, name));
  const result = await build({
    entryPoints,
    outdir: PAGES_ASSETS,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const manifest = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (output.entryPoint === undefined) continue;
    const entry = basename(output.entryPoint).replace(/\.mts$/, '.js');
    manifest[entry] = basename(file);
  }
  writeFileSync(join(PAGES_ASSETS, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}
