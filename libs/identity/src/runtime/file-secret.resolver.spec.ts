import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnvAndFileSecretResolver, createFileSecretResolver } from './file-secret.resolver.js';
import { SecretResolutionError } from './secret.resolver.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-file-secrets-'));
  writeFileSync(join(dir, 'tessera_test_pepper'), 'file-pepper-value-0123456789\n');
  writeFileSync(join(dir, 'tessera_test_pepper_v2'), 'second-file-pepper-value\r\n\n');
  writeFileSync(join(dir, 'tessera_test_empty'), '\n');
  mkdirSync(join(dir, 'tessera_test_directory'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file secret resolver', () => {
  const resolver = createFileSecretResolver();

  it('reads the file a file: reference names, without trailing line breaks; the version is a label', async () => {
    expect((await resolver.resolve(`file:${dir}/tessera_test_pepper`)).toString()).toBe('file-pepper-value-0123456789');
    expect((await resolver.resolve(`file:${dir}/tessera_test_pepper_v2@v2`)).toString()).toBe(
      'second-file-pepper-value',
    );
  });

  it.each([
    ['a missing file', () => `file:${dir}/tessera_test_missing`, /cannot be read \(ENOENT\)/],
    ['a directory', () => `file:${dir}/tessera_test_directory`, /cannot be read \(EISDIR\)/],
    ['an empty file', () => `file:${dir}/tessera_test_empty`, /is empty/],
    ['a relative path', () => 'file:secrets/tessera_test_pepper', /file:\/absolute\/path/],
    ['an env: reference', () => 'env:TESSERA_TEST_PEPPER', /file:\/absolute\/path/],
  ])('refuses %s, naming the reference only', async (_case, reference, reason) => {
    const error = await resolver.resolve(reference()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretResolutionError);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).not.toContain('file-pepper-value');
  });
});

describe('env and file secret resolver', () => {
  const resolver = createEnvAndFileSecretResolver({ TESSERA_TEST_KEY: 'env-held-key-0123456789' });

  it('dispatches env: to the environment and file: to the file system', async () => {
    expect((await resolver.resolve('env:TESSERA_TEST_KEY')).toString()).toBe('env-held-key-0123456789');
    expect((await resolver.resolve(`file:${dir}/tessera_test_pepper`)).toString()).toBe('file-pepper-value-0123456789');
  });

  it('refuses any other scheme', async () => {
    await expect(resolver.resolve('vault:tessera/test/key')).rejects.toThrow(
      'secret vault:tessera/test/key: only env: and file: references are supported',
    );
  });
});
