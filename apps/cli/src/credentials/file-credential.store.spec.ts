import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredLogin } from './credentials.types.js';
import { FileCredentialStore } from './file-credential.store.js';
import { writeJsonAtomic } from './private-file.js';

const loginFor = (server: string, refreshToken = `${server}-refresh`): StoredLogin => ({
  server,
  clientId: 'tessera-cli',
  accessToken: `${server}-access`,
  accessTokenExpiresAt: '2026-07-14T08:30:00.000Z',
  refreshToken,
  scope: 'identity.profile',
  loggedInAt: '2026-07-14T08:15:00.000Z',
});

describe('FileCredentialStore', () => {
  let root: string;
  let dir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tessera-file-store-'));
    dir = join(root, 'nested', 'tessera');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes the credentials file with mode 0600 in a folder it creates with mode 0700', async () => {
    await new FileCredentialStore(dir).write(loginFor('https://a.example'));
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('tightens an existing folder that other users could read to 0700', async () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    await new FileCredentialStore(dir).write(loginFor('https://a.example'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps the logins of several servers side by side, and removes one without touching the others', async () => {
    const store = new FileCredentialStore(dir);
    await store.write(loginFor('https://a.example'));
    await store.write(loginFor('https://b.example'));
    await store.write(loginFor('https://a.example', 'rotated'));
    expect((await store.read('https://a.example'))?.refreshToken).toBe('rotated');
    expect((await store.read('https://b.example'))?.refreshToken).toBe('https://b.example-refresh');
    await store.remove('https://a.example');
    expect(await store.read('https://a.example')).toBeUndefined();
    expect(await new FileCredentialStore(dir).read('https://b.example')).toEqual(loginFor('https://b.example'));
  });

  it('reads nothing from a folder without a credentials file', async () => {
    expect(await new FileCredentialStore(dir).read('https://a.example')).toBeUndefined();
  });
});

describe('writeJsonAtomic', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-atomic-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the file by renaming a new one over it, leaving no temp file behind', () => {
    const path = join(dir, 'credentials.json');
    writeJsonAtomic(path, { generation: 1 });
    const before = statSync(path).ino;
    writeJsonAtomic(path, { generation: 2 });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ generation: 2 });
    expect(statSync(path).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('leaves the previous file intact when a write fails midway', () => {
    const path = join(dir, 'credentials.json');
    writeJsonAtomic(path, { generation: 1 });
    expect(() => writeJsonAtomic(path, { generation: 2n })).toThrow(TypeError);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ generation: 1 });
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });
});
