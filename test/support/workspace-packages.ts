import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/support/workspace-packages.ts). */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** The fields of a workspace package manifest the packaging checks read. */
export interface PackageManifest {
  name: string;
  version: string;
  type?: string;
  license?: string;
  private?: boolean;
  engines?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** One publishable package of the workspace: its folder under libs/ and its manifest. */
export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: PackageManifest;
}

/**
 * Every package under libs/ (the publishable ones; apps/ are private consumers).
 *
 * @example
 * workspacePackages().map((p) => p.manifest.name); // ['@tessera/core', ...]
 */
export function workspacePackages(root = REPOSITORY_ROOT): WorkspacePackage[] {
  return readdirSync(join(root, 'libs'))
    .filter((name) => existsSync(join(root, 'libs', name, 'package.json')))
    .sort()
    .map((name) => ({
      dir: join('libs', name),
      manifest: JSON.parse(readFileSync(join(root, 'libs', name, 'package.json'), 'utf8')) as PackageManifest,
    }));
}

/** The files each export condition of a manifest points at (`./dist/index.js` → `dist/index.js`). */
export function exportedFiles(manifest: PackageManifest): string[] {
  const files: string[] = [];
  for (const target of Object.values(manifest.exports ?? {})) {
    const paths = typeof target === 'string' ? [target] : Object.values(target);
    for (const path of paths) files.push(path.replace(/^\.\//, ''));
  }
  return [...new Set(files)];
}

/**
 * What is wrong with the file list of a package tarball: anything but the manifest, the README,
 * a licence and compiled output under `dist/` (JavaScript, its source maps, declarations); tests,
 * test maps, sources, build info and `.data` never ship; with `built`, every exported file ships.
 *
 * @example
 * expect(packageFileProblems(manifest, ['package.json', 'src/index.ts'], { built: false })).toEqual(['ships src/index.ts']);
 */
export function packageFileProblems(
  manifest: PackageManifest,
  files: readonly string[],
  options: { built: boolean },
): string[] {
  const problems: string[] = [];
  const shipped = new Set(files);
  for (const file of files) {
    const allowed =
      file === 'package.json' ||
      file === 'README.md' ||
      /^LICEN[CS]E(\.md)?$/.test(file) ||
      /^dist\/.+(\.js|\.js\.map|\.d\.ts)$/.test(file);
    const testish = /(^|\/)(test|tests|__tests__|\.data)(\/|$)|\.(spec|e2e-spec|test)\.|tsbuildinfo$/.test(file);
    if (!allowed || testish) problems.push(`ships ${file}`);
    if (file.endsWith('.js.map') && !shipped.has(file.slice(0, -'.map'.length)))
      problems.push(`ships ${file} without its script`);
  }
  if (options.built) {
    for (const file of exportedFiles(manifest)) if (!shipped.has(file)) problems.push(`misses exported ${file}`);
  }
  return problems;
}

/** `npm pack --dry-run --json` of the given workspace folders: each package's name and file list. */
export function dryRunPack(dirs: readonly string[], root = REPOSITORY_ROOT): { name: string; files: string[] }[] {
  const output = execFileSync(
    'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts', ...dirs.flatMap((dir) => ['--workspace', dir])],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
  const packs = JSON.parse(output) as { name: string; files: { path: string }[] }[];
  return packs.map((pack) => ({ name: pack.name, files: pack.files.map((file) => file.path) }));
}

/** The bare module specifiers a source file imports (`@scope/name/sub` → `@scope/name`), builtins excluded. */
export function importedPackages(source: string): string[] {
  const names = new Set<string>();
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm, // import … from 'x', export … from 'x'
    /^\s*import\s*['"]([^'"]+)['"]/gm, // import 'x'
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, // import('x')
  ];
  const specifiers = patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) continue;
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return [...names];
}
