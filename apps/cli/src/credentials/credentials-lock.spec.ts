import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli.errors.js';
import { withCredentialsLock } from './credentials-lock.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
  );
}

describe('withCredentialsLock', () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-lock-'));
    path = join(dir, 'config', 'credentials.lock');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one holder at a time in: the second runs only after the first released the lock', async () => {
    const events: string[] = [];
    const first = withCredentialsLock(path, async () => {
      events.push('first in');
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push('first out');
    });
    const second = withCredentialsLock(path, async () => events.push('second in'), { retryMs: 5 });
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(existsSync(path)).toBe(false);
  });

  it('releases the lock when the holder fails', async () => {
    await expect(withCredentialsLock(path, () => Promise.reject(new Error('refresh failed')))).rejects.toThrow(
      'refresh failed',
    );
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock left behind by a process that no longer runs', async () => {
    await withCredentialsLock(path, async () => undefined);
    writeFileSync(path, JSON.stringify({ pid: deadPid(), nonce: 'crashed' }));
    await expect(withCredentialsLock(path, async () => 'refreshed', { waitMs: 2_000 })).resolves.toBe('refreshed');
  });

  it('takes over a lock older than the stale bound even if its process still runs', async () => {
    await withCredentialsLock(path, async () => undefined);
    writeFileSync(path, JSON.stringify({ pid: process.pid, nonce: 'hung' }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    await expect(withCredentialsLock(path, async () => 'refreshed', { waitMs: 2_000 })).resolves.toBe('refreshed');
  });

  it('gives up after the bounded wait with a one-line message naming the lock file', async () => {
    await withCredentialsLock(path, async () => undefined);
    writeFileSync(path, JSON.stringify({ pid: process.pid, nonce: 'busy' }));
    const waited = withCredentialsLock(path, async () => 'never', { waitMs: 100, retryMs: 10 });
    await expect(waited).rejects.toBeInstanceOf(CliError);
    await expect(waited).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining(path) });
    expect(existsSync(path)).toBe(true);
  });

  it('does not delete a lock another process took over while it was held', async () => {
    await withCredentialsLock(path, async () => {
      writeFileSync(path, JSON.stringify({ pid: process.pid, nonce: 'someone-else' }));
    });
    expect(existsSync(path)).toBe(true);
  });
});
