import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, ExitCode } from '../cli.errors.js';
import { ensurePrivateDir } from './private-file.js';

/** Bounds of {@link withCredentialsLock}. */
export interface LockOptions {
  /** How long to wait for another process's lock before giving up. @default 20000 */
  readonly waitMs?: number;
  /** A lock older than this is abandoned (longer than one refresh's request bound). @default 30000 */
  readonly staleMs?: number;
  /** Pause between attempts. @default 100 */
  readonly retryMs?: number;
}

interface LockContent {
  pid: number;
  nonce: string;
}

/**
 * Runs `fn` holding the cross-process lock file at `path` (next to the credential store), so that
 * only one `tessera` process refreshes or rewrites a login at a time: two refreshes of the same
 * refresh token outside the server's retry window would look like a replay and revoke the family.
 * The lock is created with `O_EXCL`; a lock whose process is gone or which is older than `staleMs`
 * is removed; waiting is bounded by `waitMs` (then exit 1 with the lock's path).
 *
 * @example
 * const login = await withCredentialsLock(join(dir, 'credentials.lock'), () => refresh(server));
 */
export async function withCredentialsLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const nonce = await acquire(path, options);
  try {
    return await fn();
  } finally {
    // Only our own lock: a waiter may have judged it stale and replaced it.
    if (readLock(path)?.nonce === nonce) rmSync(path, { force: true });
  }
}

async function acquire(path: string, options: LockOptions): Promise<string> {
  const waitMs = options.waitMs ?? 20_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + waitMs;
  const nonce = randomBytes(12).toString('hex');
  ensurePrivateDir(dirname(path));
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, nonce } satisfies LockContent));
      closeSync(fd);
      return nonce;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    removeIfStale(path, staleMs);
    if (Date.now() >= deadline)
      throw new CliError(
        `Another tessera process holds the credentials lock ${path}; retry, or delete the file if no tessera is running.`,
        ExitCode.failure,
      );
    await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 100));
  }
}

function removeIfStale(path: string, staleMs: number): void {
  let modifiedAt: number;
  try {
    modifiedAt = statSync(path).mtimeMs;
  } catch {
    return;
  }
  const content = readLock(path);
  // A lock being written right now has no content yet: judge it by age only.
  const dead = content !== undefined && !processAlive(content.pid);
  if (!dead && Date.now() - modifiedAt < staleMs) return;
  // Remove only the lock we judged: if it changed meanwhile, another waiter already took over.
  if (readLock(path)?.nonce === content?.nonce) rmSync(path, { force: true });
}

function readLock(path: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' && typeof parsed.nonce === 'string'
      ? { pid: parsed.pid, nonce: parsed.nonce }
      : undefined;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
