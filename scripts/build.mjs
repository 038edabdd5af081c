// Builds libs/ and apps/ into dist/ with swc (decorator metadata on, `@tessera/*` aliases
// rewritten to relative imports), then copies static assets (apps/*/src/**/public).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/@swc/cli/bin/swc.js', 'libs', 'apps', '-d', 'dist', '--config-file', '.swcrc', '--ignore', '**/*.spec.ts', '--quiet'], {
  stdio: 'inherit',
});
for (const app of existsSync('apps') ? readdirSync('apps') : []) {
  const source = join('apps', app, 'src', 'public');
  if (existsSync(source)) cpSync(source, join('dist', 'apps', app, 'src', 'public'), { recursive: true });
}
