import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceClient, DeviceIdentity, DeviceLogin, DeviceLoginOutcome } from './device-client.js';

/** The built CLI (`npm run build`; the browser suite's global setup builds it). */
export const CLI_MAIN = 'dist/apps/cli/src/main.js';
/** How long `tessera login` may take to print the URI and the code, and `whoami` to answer. */
const PRINT_TIMEOUT_MS = 30_000;
const USER_CODE_LINE = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}$/;

/** `tessera whoami --json`, as far as the journey reads it. */
interface WhoamiJson {
  user: { id: string; displayName: string } | null;
  organization: { id: string } | null;
  scopes: string[];
}

/** One run of the CLI: its output so far, and its exit. */
class CliRun {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number>;

  constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
    });
  }

  /** The first stdout line matching `test`, waiting for it at most {@link PRINT_TIMEOUT_MS}. */
  async line(test: (line: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + PRINT_TIMEOUT_MS;
    for (;;) {
      const found = this.stdout.split('\n').find((line) => test(line.trim()));
      if (found !== undefined) return found.trim();
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`tessera login printed no ${what} (exit ${this.child.exitCode}): ${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The `tessera` CLI as the journey's device client: each call runs the built CLI as a child process
 * with its own config folder and the file credential store (`TESSERA_CONFIG_DIR`,
 * `TESSERA_CREDENTIAL_STORE=file`), like a developer's terminal. Tokens stay in that folder.
 *
 * @example
 * const login = await new CliDeviceClient(origin).start(['identity.profile']);
 */
export class CliDeviceClient implements DeviceClient {
  private readonly configDir = mkdtempSync(join(tmpdir(), 'tessera-cli-journey-'));
  private readonly runs: CliRun[] = [];

  constructor(private readonly origin: string) {}

  private run(args: readonly string[]): CliRun {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      env: {
        ...process.env,
        TESSERA_CONFIG_DIR: this.configDir,
        TESSERA_CREDENTIAL_STORE: 'file',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = new CliRun(child);
    this.runs.push(run);
    return run;
  }

  async start(scopes: readonly string[]): Promise<DeviceLogin> {
    const login = this.run(['login', '--server', this.origin, '--scope', scopes.join(' ')]);
    const verificationUri = await login.line((line) => /^https?:\/\/\S+$/.test(line), 'verification URI');
    const userCode = await login.line((line) => USER_CODE_LINE.test(line), 'user code');
    const finished: Promise<DeviceLoginOutcome> = login.exited.then((exitCode) => ({
      exitCode,
      message: `${login.stdout}${login.stderr}`,
    }));
    finished.catch(() => undefined);
    return { userCode, verificationUri, finished };
  }

  async whoami(): Promise<DeviceIdentity> {
    const run = this.run(['whoami', '--json']);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), PRINT_TIMEOUT_MS);
    const exitCode = await run.exited.finally(() => clearTimeout(timer));
    if (exitCode !== 0) throw new Error(`tessera whoami exited ${exitCode}: ${run.stderr}`);
    const view = JSON.parse(run.stdout) as WhoamiJson;
    return {
      userId: view.user?.id ?? '',
      displayName: view.user?.displayName ?? '',
      organizationIds: view.organization === null ? [] : [view.organization.id],
      scopes: view.scopes,
    };
  }

  /** Stops runs still going (a journey that failed half-way) and removes the config folder. */
  async close(): Promise<void> {
    for (const run of this.runs) if (run.child.exitCode === null) run.child.kill('SIGTERM');
    await Promise.allSettled(this.runs.map((run) => run.exited));
    rmSync(this.configDir, { recursive: true, force: true });
  }
}
