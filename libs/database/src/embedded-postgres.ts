import { existsSync } from 'node:fs';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { loadPgliteTemplate } from './pglite-template.js';

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /**
   * Directory holding the database files; seeded from the cached template when it holds no
   * database yet, reused as is otherwise. Omit it for a throw-away in-memory database.
   *
   * @default undefined (in memory)
   */
  dataDir?: string;
  /**
   * Interface the socket server binds to.
   *
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * TCP port; 0 lets the OS pick a free one (read it back from `url`/`port`).
   *
   * @default 0
   */
  port?: number;
  /**
   * Client connections the socket server accepts at once (they are multiplexed onto one PGlite
   * session); keep it above the ORM pool size so a reconnect never races a closing socket.
   *
   * @default 10
   */
  maxConnections?: number;
}

/** A running embedded PostgreSQL server. */
export interface EmbeddedPostgres {
  /** Connection URL for any PostgreSQL client, e.g. `postgres://postgres@127.0.0.1:54012/postgres`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The PGlite instance behind the socket (do not query it while clients hold a transaction). */
  readonly db: PGlite;
  /** Stops the socket server, then closes PGlite cleanly so a `dataDir` can be reopened. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts PGlite behind a PostgreSQL wire-protocol socket, so the stock `pg`/MikroORM driver talks to it.
 *
 * @example
 * const pg = await startEmbeddedPostgres({ dataDir: '.data/pglite' });
 * const orm = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: pg.url, entities });
 * // ...
 * await orm.close();
 * await pg.close();
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const unlock = dataDir ? await lockDataDir(dataDir) : undefined;
  let db: PGlite | undefined;
  try {
    db = await openPglite(dataDir);
    const server = new PGLiteSocketServer({
      db,
      host,
      port: options.port ?? 0,
      maxConnections: options.maxConnections ?? 10,
    });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    let closing: Promise<void> | undefined;
    const opened = db;
    const url = `postgres://postgres@${host}:${port}/postgres`;
    liveUrls.add(url);
    return {
      url,
      host,
      port,
      db: opened,
      close: () =>
        (closing ??= (async () => {
          try {
            liveUrls.delete(url);
            await server.stop();
            await opened.close();
          } finally {
            await unlock?.();
          }
        })()),
    };
  } catch (error) {
    await db?.close().catch(() => undefined);
    await unlock?.();
    throw error;
  }
}

/** URLs of the embedded servers running in this process. */
const liveUrls = new Set<string>();

/** Whether `url` points at an embedded server started by this process (it then needs a single-connection pool). */
export function isEmbeddedPostgresUrl(url: string): boolean {
  return liveUrls.has(url);
}

async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir === undefined) return PGlite.create({ loadDataDir: await loadPgliteTemplate() });
  if (existsSync(join(dataDir, 'PG_VERSION'))) return PGlite.create({ dataDir });
  await mkdir(dataDir, { recursive: true });
  return PGlite.create({ dataDir, loadDataDir: await loadPgliteTemplate() });
}

/** Data directories this process has open (a lock file naming our own pid may be left by a crash). */
const openHere = new Set<string>();

/**
 * PGlite has no postmaster.pid: guard `dataDir` against a second opener with `<dataDir>.lock`
 * (taken over when the recorded process is gone).
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = `${dataDir}.lock`;
  await mkdir(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      openHere.add(dataDir);
      return async () => {
        openHere.delete(dataDir);
        await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await readFile(path, 'utf8').catch(() => ''));
      if (openHere.has(dataDir) || (owner && owner !== process.pid && isAlive(owner))) {
        throw new Error(`Embedded PostgreSQL data directory ${dataDir} is in use (process ${owner})`, { cause: error });
      }
      await unlink(path).catch(() => undefined);
    }
  }
  throw new Error(`Could not lock embedded PostgreSQL data directory ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
