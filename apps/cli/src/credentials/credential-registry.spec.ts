import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../cli.errors.js';
import { CredentialRegistry } from './credential-registry.js';
import type { StoredLogin } from './credentials.types.js';

const loginFor = (server: string, loggedInAt: string): StoredLogin => ({
  server,
  clientId: 'tessera-cli',
  accessToken: 'access',
  accessTokenExpiresAt: '2026-07-14T08:30:00.000Z',
  refreshToken: 'refresh',
  scope: 'identity.profile',
  loggedInAt,
});

describe('CredentialRegistry', () => {
  let dir: string;
  let warnings: string[];
  let registry: CredentialRegistry;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-registry-'));
    warnings = [];
    registry = new CredentialRegistry({ TESSERA_CONFIG_DIR: dir, TESSERA_CREDENTIAL_STORE: 'file' }, (line) =>
      warnings.push(line),
    );
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes the most recent login the default server; a refresh does not change it', async () => {
    await registry.save(loginFor('https://a.example', '2026-07-14T08:00:00Z'), 'file', true);
    await registry.save(loginFor('https://b.example', '2026-07-14T09:00:00Z'), 'file', true);
    expect(registry.defaultServer()).toBe('https://b.example');
    await registry.save(loginFor('https://a.example', '2026-07-14T08:00:00Z'), 'file', false);
    expect(registry.defaultServer()).toBe('https://b.example');
    expect(registry.storeOf('https://a.example')).toBe('file');
  });

  it('falls back to the most recent remaining login when the default one is removed', async () => {
    await registry.save(loginFor('https://a.example', '2026-07-14T08:00:00Z'), 'file', true);
    await registry.save(loginFor('https://c.example', '2026-07-14T08:30:00Z'), 'file', true);
    await registry.save(loginFor('https://b.example', '2026-07-14T09:00:00Z'), 'file', true);
    await registry.remove('https://b.example');
    expect(registry.defaultServer()).toBe('https://c.example');
    expect(await registry.load('https://b.example')).toBeUndefined();
    await registry.remove('https://c.example');
    await registry.remove('https://a.example');
    expect(registry.defaultServer()).toBeUndefined();
  });

  it('keeps its server index 0600 and warns once per run that the file store is in use', async () => {
    expect(await registry.chooseStore()).toBe('file');
    await registry.save(loginFor('https://a.example', '2026-07-14T08:00:00Z'), 'file', true);
    await registry.load('https://a.example');
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual([expect.stringContaining(join(dir, 'credentials.json'))]);
  });

  it('refuses an unknown TESSERA_CREDENTIAL_STORE as a usage error', async () => {
    const odd = new CredentialRegistry({ TESSERA_CONFIG_DIR: dir, TESSERA_CREDENTIAL_STORE: 'vault' }, () => {});
    await expect(odd.chooseStore()).rejects.toEqual(
      new CliError('TESSERA_CREDENTIAL_STORE must be `file` or `keyring`.', ExitCode.usage),
    );
  });
});
