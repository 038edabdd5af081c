import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode, NOT_LOGGED_IN } from '../cli.errors.js';
import type { CliContext } from '../cli.context.js';
import { CredentialRegistry } from '../credentials/credential-registry.js';
import type { StoredLogin } from '../credentials/credentials.types.js';
import { HttpClient } from '../http/http.client.js';
import { Output } from '../output/output.js';
import { freshLogin, requireLogin } from './stored-login.session.js';

const SERVER = 'https://id.example.com';
const NOW = Date.parse('2026-07-14T08:00:00Z');

describe('freshLogin', () => {
  let dir: string;
  let refreshes: string[];
  let answer: () => Response;

  /** A context on a file store in a temp folder whose token endpoint answers `answer()`. */
  const contextOf = (): CliContext => {
    const env = { TESSERA_CONFIG_DIR: dir, TESSERA_CREDENTIAL_STORE: 'file' };
    const sink = { write: () => true };
    return {
      env,
      output: new Output(sink, sink, env),
      registry: new CredentialRegistry(env, () => {}),
      verbose: false,
      now: () => NOW,
      http: (server) =>
        new HttpClient(server, {
          fetch: async (_url, init) => {
            refreshes.push(new URLSearchParams(String(init?.body)).get('refresh_token')!);
            // Let the other caller reach the lock while this refresh is in flight.
            await new Promise((resolve) => setTimeout(resolve, 20));
            return answer();
          },
        }),
    };
  };
  const stored = (expiresInMs: number): StoredLogin => ({
    server: SERVER,
    clientId: 'tessera-cli',
    accessToken: 'access-1',
    accessTokenExpiresAt: new Date(NOW + expiresInMs).toISOString(),
    refreshToken: 'refresh-1',
    scope: 'identity.profile',
    loggedInAt: new Date(NOW - 3_600_000).toISOString(),
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-session-'));
    refreshes = [];
    answer = () =>
      Response.json({
        access_token: 'access-2',
        token_type: 'Bearer',
        expires_in: 900,
        refresh_token: 'refresh-2',
        scope: 'identity.profile',
      });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps an access token that is valid for more than a minute', async () => {
    const context = contextOf();
    await context.registry.save(stored(120_000), 'file', true);
    expect((await freshLogin(context, await requireLogin(context, undefined))).accessToken).toBe('access-1');
    expect(refreshes).toEqual([]);
  });

  it('refreshes once for concurrent callers: the second reads the pair the first stored, never the spent token', async () => {
    const first = contextOf();
    const second = contextOf();
    await first.registry.save(stored(30_000), 'file', true);
    const login = await requireLogin(first, undefined);
    const [a, b] = await Promise.all([freshLogin(first, login), freshLogin(second, login)]);
    expect(refreshes).toEqual(['refresh-1']);
    expect([a.accessToken, b.accessToken]).toEqual(['access-2', 'access-2']);
    expect(await first.registry.load(SERVER)).toMatchObject({
      accessToken: 'access-2',
      refreshToken: 'refresh-2',
      accessTokenExpiresAt: new Date(NOW + 900_000).toISOString(),
      loggedInAt: login.loggedInAt,
    });
  });

  it('deletes the stored login and says so when the refresh answers invalid_grant', async () => {
    answer = () => Response.json({ error: 'invalid_grant', error_description: 'revoked' }, { status: 400 });
    const context = contextOf();
    await context.registry.save(stored(-1_000), 'file', true);
    await expect(freshLogin(context, await requireLogin(context, undefined))).rejects.toMatchObject({
      exitCode: ExitCode.failure,
      message: expect.stringContaining(`The login for ${SERVER} was revoked or has expired and has been removed.`),
    });
    expect(await context.registry.load(SERVER)).toBeUndefined();
    await expect(requireLogin(context, undefined)).rejects.toEqual(new CliError(NOT_LOGGED_IN, ExitCode.failure));
  });

  it('keeps the stored login when the server is unavailable', async () => {
    answer = () => Response.json({ error: 'temporarily_unavailable', error_description: 'x' }, { status: 503 });
    const context = contextOf();
    await context.registry.save(stored(-1_000), 'file', true);
    await expect(freshLogin(context, await requireLogin(context, undefined))).rejects.toMatchObject({
      exitCode: ExitCode.unavailable,
    });
    expect((await context.registry.load(SERVER))?.refreshToken).toBe('refresh-1');
  });
});
