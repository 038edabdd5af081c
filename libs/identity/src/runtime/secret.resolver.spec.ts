import { describe, expect, it } from '@jest/globals';
import {
  createEnvSecretResolver,
  createInMemorySecretResolver,
  parseSecretReference,
  SecretResolutionError,
} from './secret.resolver.js';

describe('secret references', () => {
  it('parse scheme, name and version (none = v1) into a canonical form', () => {
    expect(parseSecretReference('env:TESSERA_PRODUCTION_SESSION_PEPPER@v2')).toEqual({
      scheme: 'env',
      name: 'TESSERA_PRODUCTION_SESSION_PEPPER',
      version: 2,
      canonical: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2',
    });
    expect(parseSecretReference('env:X')?.canonical).toBe('env:X@v1');
    expect(parseSecretReference('env:X@v1')?.canonical).toBe('env:X@v1');
  });

  it.each(['', 'TESSERA_KEY', 'env:', 'env:X@v0', 'env:X@2', 'env:X@v2@v3', 'env:X Y', 'Env:X', 42])(
    'reject the malformed reference %p',
    (reference) => {
      expect(parseSecretReference(reference)).toBeUndefined();
    },
  );
});

describe('env secret resolver', () => {
  const env = {
    TESSERA_TEST_PEPPER: 'first-version-pepper-value',
    TESSERA_TEST_PEPPER_V2: 'second-version-pepper-value',
    EMPTY: '',
  };
  const resolver = createEnvSecretResolver(env);

  it('reads NAME for v1 and NAME_Vn for later versions as UTF-8 bytes', async () => {
    expect((await resolver.resolve('env:TESSERA_TEST_PEPPER')).toString()).toBe(env.TESSERA_TEST_PEPPER);
    expect((await resolver.resolve('env:TESSERA_TEST_PEPPER@v1')).toString()).toBe(env.TESSERA_TEST_PEPPER);
    expect((await resolver.resolve('env:TESSERA_TEST_PEPPER@v2')).toString()).toBe(env.TESSERA_TEST_PEPPER_V2);
  });

  it('fails for missing or empty variables and other schemes without revealing values', async () => {
    await expect(resolver.resolve('env:TESSERA_TEST_PEPPER@v3')).rejects.toThrow('TESSERA_TEST_PEPPER_V3 is not set');
    await expect(resolver.resolve('env:EMPTY')).rejects.toBeInstanceOf(SecretResolutionError);
    await expect(resolver.resolve('vault:secret/x')).rejects.toBeInstanceOf(SecretResolutionError);
    await expect(resolver.resolve('env:lower_case')).rejects.toBeInstanceOf(SecretResolutionError);
  });
});

describe('in-memory secret resolver', () => {
  it('resolves by canonical reference and returns copies', async () => {
    const resolver = createInMemorySecretResolver({
      'env:A_TEST_KEY': 'value-one',
      'memory:b@v2': new Uint8Array([1, 2]),
    });
    const first = await resolver.resolve('env:A_TEST_KEY@v1');
    expect(first.toString()).toBe('value-one');
    first.fill(0);
    expect((await resolver.resolve('env:A_TEST_KEY')).toString()).toBe('value-one');
    expect(await resolver.resolve('memory:b@v2')).toEqual(Buffer.from([1, 2]));
    await expect(resolver.resolve('memory:b')).rejects.toBeInstanceOf(SecretResolutionError);
  });

  it('refuses malformed keys at construction', () => {
    expect(() => createInMemorySecretResolver({ 'not a reference': 'x' })).toThrow(SecretResolutionError);
  });
});
