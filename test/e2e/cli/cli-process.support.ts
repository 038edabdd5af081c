import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The built CLI (`npm run build` and `node scripts/build.mjs --no-types` write it). */
export const CLI_MAIN = 'dist/apps/cli/src/main.js';
const DEMO_MAIN = 'dist/apps/demo/src/main.js';
/** Bound of one CLI run: a login polls at least 5 s; nothing in these tests should take a minute. */
const RUN_TIMEOUT_MS = 60_000;

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (name.endsWith('.ts') || name.endsWith('.mts')) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/**
 * Builds the apps (`node scripts/build.mjs --no-types`) unless the built CLI and demo are newer
 * than every source they are compiled from, so the tests never run a stale binary.
 */
export function ensureBuilt(): void {
  const sources = ['apps/cli/src', 'apps/demo/src', ...readdirSync('libs').map((lib) => join('libs', lib, 'src'))];
  const built = [CLI_MAIN, DEMO_MAIN].map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0));
  const newest = Math.max(...sources.filter((dir) => existsSync(dir)).map(newestSource));
  if (Math.min(...built) > newest) return;
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-types'], { stdio: 'inherit' });
}

/** The outcome of one CLI run. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running CLI: its output so far, a wait for a stdout line, and its outcome. */
export interface CliProcess {
  readonly done: Promise<CliRun>;
  /** Sends SIGINT, as Ctrl-C on a terminal would. */
  interrupt(): void;
  /** Resolves with the first stdout match of `pattern` (rejects when the CLI exits first). */
  waitForLine(pattern: RegExp): Promise<RegExpExecArray>;
}

/**
 * Starts `node dist/apps/cli/src/main.js ...args` with `env` (added to a copy of this process's
 * environment, without `NO_COLOR` unless given), stdin closed, stdout and stderr piped — so
 * stdout is not a TTY. Killed after 60 s.
 */
export function startCli(args: readonly string[], env: Readonly<Record<string, string>>): CliProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (env.NO_COLOR === undefined) delete childEnv.NO_COLOR;
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const done = new Promise<CliRun>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      for (const listener of listeners) listener();
      resolve({ code, stdout, stderr });
    }),
  );
  return {
    done,
    interrupt: () => child.kill('SIGINT'),
    waitForLine(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}m`).exec(stdout);
          if (match !== null) {
            listeners.delete(check);
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            listeners.delete(check);
            reject(new Error(`the CLI exited (${child.exitCode}) before printing ${pattern}:\n${stdout}\n${stderr}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs the CLI to completion (see {@link startCli}). */
export function runCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<CliRun> {
  return startCli(args, env).done;
}
