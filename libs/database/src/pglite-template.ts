import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/** A lock file older than this is considered abandoned by a crashed process. */
const STALE_LOCK_MS = 60_000;
const POLL_MS = 50;

let cached: Promise<Blob> | undefined;

/**
 * Directory holding the cached, freshly initialised PGlite data directory (as a tarball).
 *
 * @default `$TESSERA_PGLITE_CACHE_DIR` or `<os.tmpdir()>/tessera-pglite`
 */
export function pgliteTemplateDir(): string {
  return process.env.TESSERA_PGLITE_CACHE_DIR ?? join(tmpdir(), 'tessera-pglite');
}

/**
 * Returns the tarball of a freshly initialised PGlite data directory, running initdb at most once
 * per machine and PGlite version (the tarball is cached on disk; concurrent processes, e.g. Jest
 * workers, serialise its creation through a lock file and publish it with an atomic rename).
 *
 * @example
 * const db = await PGlite.create({ loadDataDir: await loadPgliteTemplate() });
 */
export function loadPgliteTemplate(): Promise<Blob> {
  cached ??= readOrCreateTemplate().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function readOrCreateTemplate(): Promise<Blob> {
  const dir = pgliteTemplateDir();
  const file = join(dir, `pgdata-${pgliteVersion()}.tar`);
  for (;;) {
    const existing = await readIfExists(file);
    if (existing) return new Blob([new Uint8Array(existing)]);
    await mkdir(dir, { recursive: true });
    const lock = await tryLock(`${file}.lock`);
    if (!lock) {
      await sleep(POLL_MS);
      continue;
    }
    try {
      const again = await readIfExists(file);
      if (again) return new Blob([new Uint8Array(again)]);
      const tarball = await initdb();
      const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(temporary, tarball);
      await rename(temporary, file);
      return new Blob([new Uint8Array(tarball)]);
    } finally {
      await lock();
    }
  }
}

/** Runs initdb in memory (faster than on disk) and dumps the resulting data directory. */
async function initdb(): Promise<Buffer> {
  const db = await PGlite.create();
  try {
    const dump = await db.dumpDataDir('none');
    return Buffer.from(await dump.arrayBuffer());
  } finally {
    await db.close();
  }
}

/** Creates `path` exclusively; returns its release function, or undefined when someone else holds it. */
async function tryLock(path: string): Promise<(() => Promise<void>) | undefined> {
  try {
    const handle = await open(path, 'wx');
    await handle.writeFile(String(process.pid));
    await handle.close();
    return () => unlink(path).catch(() => undefined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > STALE_LOCK_MS) await unlink(path).catch(() => undefined);
    return undefined;
  }
}

async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@electric-sql/pglite');
  const manifest = require(join(dirname(entry), '..', 'package.json')) as { version: string };
  return manifest.version;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
