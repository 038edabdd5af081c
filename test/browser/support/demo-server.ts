import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@tessera/database';

const MAIN = 'dist/apps/demo/src/main.js';
const INVITE = 'dist/apps/demo/src/invite.js';

/** Input of {@link DemoServer.createInvitation}. */
export interface DemoInvitation {
  organizationId: string;
  email: string;
  role?: 'owner' | 'admin' | 'publisher' | 'viewer';
  invitedByUserId?: string;
}

/** A TCP port nothing listens on right now (bound once on 127.0.0.1, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** How the demo process ended. */
export interface DemoExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * The built demo (`node dist/apps/demo/src/main.js`) in a child process on a free port, with a temp
 * data directory, a random bootstrap secret and a fresh database: a new `tessera_browser_*`
 * database on the `DATABASE_URL` server when one is set (dropped on stop), embedded PGlite under the
 * data directory otherwise.
 */
export class DemoServer {
  readonly bootstrapSecret = randomBytes(24).toString('base64url');
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(
    readonly port: number,
    private readonly dataDir: string,
    private readonly database: TestDatabase | undefined,
    private readonly extraEnv: Readonly<Record<string, string>>,
  ) {}

  /** `http://localhost:<port>`: WebAuthn accepts the RP ID `localhost` there, not on 127.0.0.1. */
  get origin(): string {
    return `http://localhost:${this.port}`;
  }

  /** `env`: extra variables for the demo, e.g. `TESSERA_STEP_UP_WINDOW_SECONDS`. */
  static async start(env: Readonly<Record<string, string>> = {}): Promise<DemoServer> {
    const database = process.env.DATABASE_URL ? await createTestDatabase({ prefix: 'tessera_browser' }) : undefined;
    const server = new DemoServer(await freePort(), mkdtempSync(join(tmpdir(), 'tessera-browser-')), database, env);
    await server.launch();
    return server;
  }

  /** Everything the demo printed so far (for failure messages). */
  output(): string {
    return this.log;
  }

  private env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(this.port),
      TESSERA_DATA_DIR: this.dataDir,
      TESSERA_BOOTSTRAP_SECRET: this.bootstrapSecret,
      NO_COLOR: '1',
      ...this.extraEnv,
    };
    if (this.database === undefined) delete env.DATABASE_URL;
    else env.DATABASE_URL = this.database.url;
    return env;
  }

  private async launch(): Promise<void> {
    const child = spawn(process.execPath, [MAIN], { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`The demo exited with ${code} during startup:\n${this.log}`))),
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ready = await Promise.race([
        fetch(`${this.origin}/health`).then(
          (response) => response.ok,
          () => false,
        ),
        exited,
      ]);
      if (ready) return;
      if (Date.now() > deadline) throw new Error(`The demo did not answer /health within 60 s:\n${this.log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** SIGTERM, then SIGKILL after 10 s: how the process ended (`SIGKILL` when it did not stop by itself). */
  private async halt(): Promise<DemoExit | undefined> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return undefined;
    const exited = new Promise<DemoExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  }

  /**
   * Creates an invitation with the dev script `invite.js` (the operator's path; the organization
   * journey creates them through the organization page instead) and returns its enrolment link,
   * as the development outbox shows it (the script delivers there). Embedded PGlite has one owner process, so the demo is stopped
   * around the script and started again on the same data (sessions and cookies survive).
   */
  async createInvitation(input: DemoInvitation): Promise<string> {
    const embedded = this.database === undefined;
    if (embedded) await this.halt();
    try {
      const args = [
        INVITE,
        '--organization',
        input.organizationId,
        '--email',
        input.email,
        '--role',
        input.role ?? 'viewer',
      ];
      if (input.invitedByUserId !== undefined) args.push('--invited-by', input.invitedByUserId);
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, args, { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.once('exit', (code) =>
          code === 0 ? resolve(out) : reject(new Error(`invite.js exited ${code}: ${err}`)),
        );
      });
      const last = output.trim().split('\n').pop() ?? '';
      const printed = JSON.parse(last) as { url?: string; delivered?: boolean };
      if (printed.url !== undefined) return printed.url;
      if (printed.delivered !== true) throw new Error(`invite.js printed neither a link nor a delivery: ${last}`);
    } finally {
      if (embedded) await this.launch();
    }
    return this.outboxLink(input.email);
  }

  /** The enrolment link of the newest message to `email` in the development outbox (`/identity/dev/outbox`). */
  async outboxLink(email: string): Promise<string> {
    const page = await (await fetch(`${this.origin}/identity/dev/outbox`)).text();
    for (const item of page.split('<li class="outbox-message">').slice(1)) {
      if (!item.includes(`<strong>${email}</strong>`)) continue;
      const href = /href="([^"]+)"/.exec(item)?.[1];
      if (href !== undefined) return href.replaceAll('&amp;', '&');
    }
    throw new Error(`The development outbox holds no invitation for ${email}`);
  }

  /** Stops the demo, drops its database and removes its data directory; how the process ended. */
  async stop(): Promise<DemoExit | undefined> {
    const exit = await this.halt();
    await this.database?.close();
    rmSync(this.dataDir, { recursive: true, force: true });
    return exit;
  }
}
