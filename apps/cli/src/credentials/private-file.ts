import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Creates `dir` (and parents) if needed and makes it 0700: the folder holds tokens and must not be
 * listable or writable by other users, even if something else created it wider.
 *
 * @example
 * ensurePrivateDir('/home/ada/.config/tessera');
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * Reads a JSON file; `undefined` when it does not exist. A file that is not JSON is an error.
 *
 * @example
 * const config = readJsonFile<{ version: 1 }>(path) ?? { version: 1 };
 */
export function readJsonFile<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

/**
 * Writes `value` as JSON to `path` atomically with mode 0600: a new temp file in the same folder
 * (created exclusively with 0600, so no other user ever sees the content), fsync, then rename over
 * `path`. A reader sees the old file or the new one, never a partial write.
 *
 * @example
 * writeJsonAtomic(join(dir, 'credentials.json'), { version: 1, logins: {} });
 */
export function writeJsonAtomic(path: string, value: unknown): void {
  ensurePrivateDir(dirname(path));
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}
