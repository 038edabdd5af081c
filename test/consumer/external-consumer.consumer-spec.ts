import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import { evaluateEnvBlock, readmeApp, type ReadmeApp } from '../support/readme-blocks.js';
import { packageFileProblems, REPOSITORY_ROOT, workspacePackages } from '../support/workspace-packages.js';

const run = promisify(execFile);
const packages = workspacePackages();

/** The environment of a child that must behave like a user's shell: no npm_* leaking from `npm run`, no server URL. */
function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'DATABASE_URL' && name !== 'NODE_OPTIONS' && !name.startsWith('TESSERA_'))
      env[name] = value;
  }
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The README's install block with every `@tessera/<name>` replaced by the packed tarball's path. */
function installFromTarballs(install: string, tarballs: ReadonlyMap<string, string>): string {
  return install.replace(/(?<=\s)(@tessera\/[a-z-]+)(?=\s|$)/g, (name) => {
    const tarball = tarballs.get(name);
    if (tarball === undefined) throw new Error(`README installs ${name}, which is not a workspace package`);
    return tarball;
  });
}

function cookieNamed(response: Response, name: string): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`));
  if (cookie === undefined) throw new Error(`no ${name} cookie (status ${response.status})`);
  return cookie.split(';')[0]!;
}

describe('an external Nest 12 app installing the packed packages and the README code verbatim', () => {
  const work = mkdtempSync(join(tmpdir(), 'tessera-consumer-'));
  const appDir = join(work, 'app');
  const packDir = join(work, 'packs');
  const tarballs = new Map<string, string>();
  let readme: ReadmeApp;
  let env: Record<string, string>;
  let server: ChildProcess | undefined;
  let output = '';
  let base = '';

  beforeAll(async () => {
    expect(relative(REPOSITORY_ROOT, work).startsWith('..')).toBe(true); // outside the repository
    readme = readmeApp(readFileSync(join(REPOSITORY_ROOT, 'README.md'), 'utf8'));
    await run(process.execPath, ['scripts/build.mjs', '--packages'], { cwd: REPOSITORY_ROOT, timeout: 300_000 });
    mkdirSync(packDir, { recursive: true });
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--pack-destination', packDir, ...packages.flatMap((p) => ['--workspace', p.dir])],
      { cwd: REPOSITORY_ROOT, env: cleanEnvironment(), timeout: 300_000 },
    );
    for (const pack of JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[]) {
      const { manifest } = packages.find((p) => p.manifest.name === pack.name)!;
      expect([
        pack.name,
        packageFileProblems(
          manifest,
          pack.files.map((f) => f.path),
          { built: true },
        ),
      ]).toEqual([pack.name, []]);
      tarballs.set(pack.name, join(packDir, pack.filename));
    }
    mkdirSync(appDir);
    writeFileSync(
      join(appDir, 'package.json'),
      `${JSON.stringify({ name: 'tessera-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
    );
    await run('bash', ['-euo', 'pipefail', '-c', installFromTarballs(readme.install, tarballs)], {
      cwd: appDir,
      env: cleanEnvironment(),
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const { file, code } of readme.files) {
      mkdirSync(dirname(join(appDir, file)), { recursive: true });
      writeFileSync(join(appDir, file), code);
    }
    await run(process.execPath, [join(appDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
      cwd: appDir,
      timeout: 300_000,
    }).catch((error: { stdout?: string }) => {
      throw new Error(`the README app does not compile against the packed packages:\n${error.stdout ?? String(error)}`);
    });
    const port = await freePort();
    env = { ...(await evaluateEnvBlock(readme.env, appDir)), PORT: String(port) };
    base = `http://localhost:${port}`;
    server = spawn(process.execPath, ['dist/main.js'], {
      cwd: appDir,
      env: cleanEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (!output.includes(`Listening on ${base}`)) {
      if (server.exitCode !== null || Date.now() > deadline)
        throw new Error(`the README app did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 1_200_000);

  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('installed the tarballs, not copies from a registry or the repository', () => {
    const installed = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const [name, tarball] of tarballs) {
      if (installed.dependencies[name] === undefined) continue; // @tessera/core and -testing are optional in the README
      expect(installed.dependencies[name]).toBe(`file:${relative(appDir, tarball)}`);
      const manifest = JSON.parse(readFileSync(join(appDir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(manifest.version).toBe(packages.find((p) => p.manifest.name === name)!.manifest.version);
    }
    for (const name of [
      '@tessera/web',
      '@tessera/viewset',
      '@tessera/database',
      '@tessera/identity',
      '@tessera/identity-mikro-orm',
    ]) {
      expect(Object.keys(installed.dependencies)).toContain(name);
    }
  });

  it('serves the radix route', async () => {
    const response = await fetch(`${base}/hello/ada`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hello: 'ada' });
  });

  it('serves the ViewSet on the embedded database', async () => {
    const created = await fetch(`${base}/todos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'milk' }),
    });
    expect(created.status).toBe(201);
    const todo = (await created.json()) as { id: number; title: string };
    expect(todo).toEqual({ id: expect.any(Number), title: 'milk' });
    const read = await fetch(`${base}/todos/${todo.id}`);
    expect([read.status, await read.json()]).toEqual([200, todo]);
    const refused = await fetch(`${base}/todos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"title":""}',
    });
    expect(refused.status).toBe(400);
  });

  it('guards with @RequireIdentity(): 401 without a session, bootstrap 201, then the guarded routes with that session', async () => {
    const anonymous = await fetch(`${base}/account`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('authentication_required');

    const origin = base;
    const boot = await fetch(`${base}/identity/v1/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({
        secret: env['TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET'],
        displayName: 'Ada Lovelace',
        primaryEmail: 'ada@example.com',
        organizationName: 'Analytical Engines',
        organizationSlug: 'engines',
      }),
    });
    const bootText = await boot.text();
    expect(boot.status).toBe(201);
    expect(bootText).not.toContain(env['TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET']);
    const booted = JSON.parse(bootText) as { userId: string; csrfToken: string };
    const restricted = cookieNamed(boot, '__Host-tessera_session');
    const setup = await fetch(`${base}/account/setup`, { headers: { cookie: restricted } });
    expect([setup.status, await setup.json()]).toEqual([
      200,
      { userId: booted.userId, next: 'POST /identity/v1/passkeys/registration/start' },
    ]);

    // The owner enrols a passkey with the restricted session, signs in, and passes @RequireIdentity().
    const authenticator = new SoftwareAuthenticator();
    const json = { 'content-type': 'application/json', origin };
    const start = await fetch(`${base}/identity/v1/passkeys/registration/start`, {
      method: 'POST',
      headers: { origin, cookie: restricted, 'x-csrf-token': booted.csrfToken },
    });
    expect(start.status).toBe(200);
    const registration = (await start.json()) as {
      ceremonyId: string;
      publicKey: Parameters<SoftwareAuthenticator['createCredential']>[0];
    };
    const finish = await fetch(`${base}/identity/v1/passkeys/registration/finish`, {
      method: 'POST',
      headers: {
        ...json,
        cookie: `${restricted}; ${cookieNamed(start, '__Host-tessera_ceremony')}`,
        'x-csrf-token': booted.csrfToken,
      },
      body: JSON.stringify({
        ceremonyId: registration.ceremonyId,
        credentialName: 'Laptop',
        credential: authenticator.createCredential(registration.publicKey, { origin }),
      }),
    });
    expect(finish.status).toBe(200);
    const signInStart = await fetch(`${base}/identity/v1/passkeys/authentication/start`, {
      method: 'POST',
      headers: { origin },
    });
    expect(signInStart.status).toBe(200);
    const request = (await signInStart.json()) as {
      ceremonyId: string;
      publicKey: Parameters<SoftwareAuthenticator['getAssertion']>[0];
    };
    const signIn = await fetch(`${base}/identity/v1/passkeys/authentication/finish`, {
      method: 'POST',
      headers: { ...json, cookie: cookieNamed(signInStart, '__Host-tessera_ceremony') },
      body: JSON.stringify({
        ceremonyId: request.ceremonyId,
        credential: authenticator.getAssertion(request.publicKey, { origin }),
      }),
    });
    expect(signIn.status).toBe(200);
    const account = await fetch(`${base}/account`, {
      headers: { cookie: cookieNamed(signIn, '__Host-tessera_session') },
    });
    expect([account.status, await account.json()]).toEqual([200, { userId: booted.userId, assurance: 'passkey' }]);
  });
});
