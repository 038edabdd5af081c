import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import {
  dryRunPack,
  exportedFiles,
  importedPackages,
  packageFileProblems,
  REPOSITORY_ROOT,
  workspacePackages,
  type PackageManifest,
} from '../support/workspace-packages.js';

const root = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as PackageManifest & {
  workspaces?: string[];
};
const packages = workspacePackages();
const names = new Set(packages.map((p) => p.manifest.name));

/** The supported ranges of the host's framework packages: each peer must be declared with exactly these. */
const HOST_PEERS: Record<string, string> = {
  '@nestjs/common': '^12.0.0',
  '@nestjs/core': '^12.0.0',
  'reflect-metadata': '^0.2.0',
  rxjs: '^7.8.0',
  '@mikro-orm/core': '>=6.6.0 <7',
  '@mikro-orm/postgresql': '>=6.6.0 <7',
  '@mikro-orm/migrations': '>=6.6.0 <7',
};

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) files.push(path);
    }
  };
  walk(join(REPOSITORY_ROOT, dir, 'src'));
  return files;
}

describe('the workspace packages', () => {
  it('are npm workspaces of the root, one per lib, named @tessera/<folder>', () => {
    expect(root.workspaces).toEqual(expect.arrayContaining(['libs/*', 'apps/*']));
    expect(packages.map((p) => p.dir)).toEqual(
      readdirSync(join(REPOSITORY_ROOT, 'libs'))
        .sort()
        .map((name) => join('libs', name)),
    );
    for (const { dir, manifest } of packages) expect(manifest.name).toBe(`@tessera/${dir.slice('libs/'.length)}`);
  });

  it.each(packages.map((p) => [p.manifest.name, p] as const))(
    '%s has a complete ESM manifest and a README',
    (_name, pkg) => {
      const { manifest, dir } = pkg;
      expect(manifest.version).toBe(root.version);
      expect(manifest.type).toBe('module');
      expect(manifest.license).toBe('MIT');
      expect(manifest.private).toBeUndefined();
      expect(manifest.engines).toEqual({ node: '>=20' });
      const main = manifest.exports?.['.'];
      expect(main).toEqual({ types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
      for (const file of exportedFiles(manifest)) expect(file).toMatch(/^dist\/.+\.(js|d\.ts)$|^package\.json$/);
      expect(manifest.files).toEqual(expect.arrayContaining(['README.md']));
      expect(manifest.files?.every((pattern) => pattern.startsWith('dist/') || pattern === 'README.md')).toBe(true);
      const readme = readFileSync(join(REPOSITORY_ROOT, dir, 'README.md'), 'utf8');
      expect(readme.startsWith(`# ${manifest.name}\n`)).toBe(true);
      expect(readme).toContain(`npm install ${manifest.name}`);
    },
  );

  it.each(packages.map((p) => [p.manifest.name, p] as const))(
    '%s declares every package its code imports, and nothing it does not import',
    (_name, { dir, manifest }) => {
      const imported = new Set<string>();
      for (const file of sourceFiles(dir)) {
        for (const name of importedPackages(readFileSync(file, 'utf8'))) {
          if (!builtinModules.includes(name) && name !== manifest.name) imported.add(name);
        }
      }
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
      expect([...imported].filter((name) => declared[name] === undefined).sort()).toEqual([]);
      // A peer may be declared without an import when it is the host's framework (reflect-metadata, rxjs).
      const unused = Object.keys(declared).filter((name) => !imported.has(name) && HOST_PEERS[name] === undefined);
      expect(unused).toEqual([]);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (names.has(name)) expect(range).toBe(root.version);
        expect(HOST_PEERS[name]).toBeUndefined(); // the host's framework is always a peer, never a copy
      }
      for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
        if (HOST_PEERS[name] !== undefined) expect([name, range]).toEqual([name, HOST_PEERS[name]]);
      }
    },
  );

  it('peer ranges admit the versions this repository is tested with', async () => {
    const semver = (await import('semver')).default;
    for (const { manifest } of packages) {
      for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) {
        const installed = JSON.parse(
          readFileSync(join(REPOSITORY_ROOT, 'node_modules', name, 'package.json'), 'utf8'),
        ) as { version: string };
        expect([manifest.name, name, semver.satisfies(installed.version, range)]).toEqual([manifest.name, name, true]);
      }
    }
  });

  it('npm pack ships only the manifest, the README and compiled output: no tests, sources, test maps or .data', () => {
    const packs = dryRunPack(packages.map((p) => p.dir));
    expect(packs.map((p) => p.name).sort()).toEqual([...names].sort());
    for (const pack of packs) {
      const { manifest, dir } = packages.find((p) => p.manifest.name === pack.name)!;
      // Checked complete when a full build (`npm run build`) is there; `npm start` builds no declarations.
      const built = exportedFiles(manifest).every((file) => existsSync(join(REPOSITORY_ROOT, dir, file)));
      expect([pack.name, packageFileProblems(manifest, pack.files, { built })]).toEqual([pack.name, []]);
      expect(pack.files).toEqual(expect.arrayContaining(['package.json', 'README.md']));
    }
  });

  it('the file rules refuse tests, sources, test maps, build info and .data', () => {
    const manifest = packages[0]!.manifest;
    expect(
      packageFileProblems(
        manifest,
        [
          'package.json',
          'src/index.ts',
          'dist/a.spec.js',
          'dist/x.js.map',
          '.data/pglite/PG_VERSION',
          'dist/tsconfig.tsbuildinfo',
        ],
        { built: true },
      ),
    ).toEqual([
      'ships src/index.ts',
      'ships dist/a.spec.js',
      'ships dist/x.js.map without its script',
      'ships .data/pglite/PG_VERSION',
      'ships dist/tsconfig.tsbuildinfo',
      'misses exported dist/index.d.ts',
      'misses exported dist/index.js',
    ]);
  });
});
