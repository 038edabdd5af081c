import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoServer, freePort } from '../../browser/support/demo-server.js';
import { ensureBuilt, runCli, startCli, type CliRun } from './cli-process.support.js';
import {
  decideDeviceCode,
  demoOwnerSession,
  getMe,
  inspectDeviceCode,
  postOAuthForm,
  type DemoSession,
} from './demo-approver.support.js';

const NOT_LOGGED_IN = 'Not logged in. Run `tessera login --server <url>`.\n';
const USER_CODE = /^[23456789A-HJ-NP-Z]{4}-[23456789A-HJ-NP-Z]{4}$/;
// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b/;

interface StoredLogin {
  server: string;
  accessToken: string;
  accessTokenExpiresAt: string;
  refreshToken: string;
  scope: string;
}

/**
 * The built `tessera` CLI as a child process against the built demo (one demo process for the
 * file), with the file credential store in a temp config folder. The device codes are approved or
 * denied over HTTP by the owner's passkey session through routes 35–37, as `/device` would.
 */
describe('the tessera CLI against the demo', () => {
  let demo: DemoServer;
  let owner: DemoSession;
  let configDir: string;
  let env: Record<string, string>;
  /** Every run but `tessera token`'s stdout, and every token the CLI held: none may appear in any output. */
  const printed: string[] = [];
  const tokens = new Set<string>();

  const credentialsFile = () => join(configDir, 'credentials.json');
  const stored = (): StoredLogin | undefined =>
    existsSync(credentialsFile())
      ? (JSON.parse(readFileSync(credentialsFile(), 'utf8')) as { logins: Record<string, StoredLogin> }).logins[
          demo.origin
        ]
      : undefined;
  const remember = (run: CliRun, options: { tokenOnStdout?: boolean } = {}) => {
    printed.push(run.stderr, options.tokenOnStdout ? '' : run.stdout);
    const login = stored();
    if (login !== undefined) tokens.add(login.accessToken).add(login.refreshToken);
    return run;
  };
  const cli = async (...args: string[]) => remember(await runCli(args, env));
  const ageAccessToken = () => {
    const file = JSON.parse(readFileSync(credentialsFile(), 'utf8')) as { logins: Record<string, StoredLogin> };
    file.logins[demo.origin]!.accessTokenExpiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(credentialsFile(), JSON.stringify(file));
  };
  const login = async (decision: { approve: readonly string[] } | 'deny', extra: string[] = []) => {
    const running = startCli(['login', '--server', demo.origin, ...extra], env);
    const [userCode] = await running.waitForLine(USER_CODE);
    await decideDeviceCode(owner, userCode, decision);
    return remember(await running.done);
  };

  beforeAll(async () => {
    ensureBuilt();
    demo = await DemoServer.start();
    owner = await demoOwnerSession(demo.origin, demo.bootstrapSecret);
    configDir = join(mkdtempSync(join(tmpdir(), 'tessera-cli-')), 'config');
    env = { TESSERA_CONFIG_DIR: configDir, TESSERA_CREDENTIAL_STORE: 'file' };
  }, 180_000);

  afterAll(async () => {
    await demo?.stop();
    if (configDir !== undefined) rmSync(join(configDir, '..'), { recursive: true, force: true });
  });

  it('answers every command but login with exactly “Not logged in” and exit 1 without a stored login', async () => {
    for (const command of ['whoami', 'orgs', 'token', 'logout']) {
      const run = await cli(command);
      expect({ command, code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
        command,
        code: 1,
        stderr: NOT_LOGGED_IN,
        stdout: '',
      });
    }
  });

  it('logs in with the approved, narrowed scopes: URI and code on their own lines, plain output, tokens in a 0600 file in a 0700 folder', async () => {
    const run = await login({ approve: ['identity.organizations', 'identity.profile'] }, [
      '--scope',
      'identity.profile identity.organizations package.publish',
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^warning: [^\n]+\n$/),
    });
    const lines = run.stdout.split('\n');
    expect(lines).toContain(`${demo.origin}/device`);
    expect(lines.some((line) => USER_CODE.test(line))).toBe(true);
    expect(lines).toContain(`Only enter this code at ${demo.origin}/device. Never share it.`);
    expect(lines).toContain('Waiting for approval…');
    expect(run.stdout + run.stderr).not.toMatch(ESCAPE);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('warning: the OS keychain is not in use')]);
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(stored()?.scope).toBe('identity.organizations identity.profile');
  }, 60_000);

  it('shows the user, organization and approved scopes with whoami --json, and the one organization with orgs', async () => {
    const whoami = await cli('whoami', '--json');
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toEqual({
      server: demo.origin,
      user: { id: owner.userId, displayName: 'Ada Lovelace' },
      organization: { id: owner.organizationId, name: 'Analytical Engines', slug: 'engines' },
      scopes: ['identity.organizations', 'identity.profile'],
    });
    const orgs = await cli('orgs', '--json');
    expect(JSON.parse(orgs.stdout)).toEqual([
      { id: owner.organizationId, name: 'Analytical Engines', slug: 'engines', role: 'device' },
    ]);
    const plain = await cli('orgs');
    expect(plain.stdout).toBe(`engines\tAnalytical Engines\tdevice\t${owner.organizationId}\n`);
  });

  it('prints only an access token that works as a Bearer on /identity/v1/me', async () => {
    const run = remember(await runCli(['token'], env), { tokenOnStdout: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${stored()!.accessToken}\n`);
    const me = await getMe(demo.origin, run.stdout.trim());
    expect({ status: me.status, userId: me.body.userId }).toEqual({ status: 200, userId: owner.userId });
  });

  it('refreshes an expired access token: a new pair is stored, the lock is released, and the new token works', async () => {
    const before = stored()!;
    ageAccessToken();
    const run = remember(await runCli(['token'], env), { tokenOnStdout: true });
    expect(run.code).toBe(0);
    const after = stored()!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(run.stdout).toBe(`${after.accessToken}\n`);
    expect(Date.parse(after.accessTokenExpiresAt)).toBeGreaterThan(Date.now());
    expect(() => statSync(join(configDir, 'credentials.lock'))).toThrow();
    expect((await getMe(demo.origin, after.accessToken)).status).toBe(200);
  });

  it('refreshes once across concurrent processes: three `tessera token` runs print the same new token', async () => {
    const before = stored()!;
    ageAccessToken();
    const runs = await Promise.all([1, 2, 3].map(() => runCli(['token'], env)));
    for (const run of runs) remember(run, { tokenOnStdout: true });
    const after = stored()!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(runs.map((run) => ({ code: run.code, stdout: run.stdout }))).toEqual(
      [1, 2, 3].map(() => ({ code: 0, stdout: `${after.accessToken}\n` })),
    );
    expect((await getMe(demo.origin, after.accessToken)).status).toBe(200);
  });

  it('prints the X-Request-ID of each request with --verbose', async () => {
    const run = await cli('--verbose', 'whoami');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^GET \/identity\/v1\/me → 200 \(request id \S+\)$/m);
  });

  it('deletes the stored login and says so when a refresh finds the family revoked', async () => {
    const revoked = await postOAuthForm(demo.origin, '/oauth/revoke', {
      token: stored()!.refreshToken,
      client_id: 'tessera-cli',
    });
    expect(revoked.status).toBe(200);
    ageAccessToken();
    const run = await cli('token');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`The login for ${demo.origin} was revoked or has expired and has been removed.`);
    expect(stored()).toBeUndefined();
    expect((await cli('whoami')).stderr).toBe(NOT_LOGGED_IN);
  });

  it('logs out: the family is revoked on the server (the old refresh token → invalid_grant) and the login deleted', async () => {
    expect((await login({ approve: ['identity.profile'] })).code).toBe(0);
    const before = stored()!;
    const run = await cli('logout');
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: `Logged out of ${demo.origin}.\n` });
    expect(stored()).toBeUndefined();
    const refreshed = await postOAuthForm(demo.origin, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: before.refreshToken,
      client_id: 'tessera-cli',
    });
    expect({ status: refreshed.status, error: refreshed.body?.error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await getMe(demo.origin, before.accessToken)).status).toBe(401);
    expect((await cli('token')).stderr).toBe(NOT_LOGGED_IN);
  }, 60_000);

  it('exits 1 with the denial message when the code is denied, and stores nothing', async () => {
    const run = await login('deny');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The login was denied in the browser.\n');
    expect(stored()).toBeUndefined();
  }, 60_000);

  it('cancels the device code on the server when the login is interrupted with Ctrl-C', async () => {
    const running = startCli(['login', '--server', demo.origin], env);
    const [userCode] = await running.waitForLine(USER_CODE);
    await running.waitForLine(/^Waiting for approval…$/);
    running.interrupt();
    const run = remember(await running.done);
    expect({ code: run.code, stderr: run.stderr.split('\n').slice(1) }).toEqual({
      code: 130,
      stderr: ['Login cancelled; the code can no longer be approved.', ''],
    });
    expect(await inspectDeviceCode(owner, userCode)).toBe(404);
    expect(stored()).toBeUndefined();
  });

  it('answers an unreachable server with one line and exit 3', async () => {
    const server = `http://127.0.0.1:${await freePort()}`;
    const run = await cli('login', '--server', server);
    expect(run.code).toBe(3);
    const errors = run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning:'));
    expect(errors).toEqual([`Could not reach ${server} (ECONNREFUSED).`]);
  });

  it('never printed a token', () => {
    expect(tokens.size).toBeGreaterThanOrEqual(6);
    for (const token of tokens) for (const output of printed) expect(output).not.toContain(token);
  });
});
