// Builds libs/ and apps/ into dist/ with swc (decorator metadata on, `@tessera/*` aliases
// rewritten to relative imports), copies static assets (apps/*/src/**/public), then bundles the
// demo pages' browser scripts and CSS with esbuild (apps/demo/src/pages/client → public/assets).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const PAGES_CLIENT = join('apps', 'demo', 'src', 'pages', 'client');
const PAGES_ASSETS = join('dist', 'apps', 'demo', 'src', 'public', 'assets');

rmSync('dist', { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    'node_modules/@swc/cli/bin/swc.js',
    'libs',
    'apps',
    '-d',
    'dist',
    '--config-file',
    '.swcrc',
    '--ignore',
    '**/*.spec.ts',
    // Browser code is bundled by esbuild below, never run by Node.
    '--ignore',
    `${PAGES_CLIENT}/**`,
    '--quiet',
  ],
  { stdio: 'inherit' },
);
for (const app of existsSync('apps') ? readdirSync('apps') : []) {
  const source = join('apps', app, 'src', 'public');
  if (existsSync(source)) cpSync(source, join('dist', 'apps', app, 'src', 'public'), { recursive: true });
}
if (existsSync(PAGES_CLIENT)) await bundlePages();

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
