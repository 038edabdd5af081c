import { describe, expect, it } from '@jest/globals';
import { createKeyRing, resolveKeyRing } from './key-ring.resolver.js';
import { createInMemorySecretResolver } from './secret.resolver.js';

const key = (char: string): Buffer => Buffer.alloc(32, char);

describe('key rings', () => {
  it('resolve the current and previous versions with versions taken from the references', async () => {
    const resolver = createInMemorySecretResolver({
      'env:TESSERA_TEST_SESSION_PEPPER@v3': key('c'),
      'env:TESSERA_TEST_SESSION_PEPPER@v2': key('b'),
      'env:TESSERA_TEST_SESSION_PEPPER': key('a'),
    });
    const ring = await resolveKeyRing(resolver, {
      current: 'env:TESSERA_TEST_SESSION_PEPPER@v3',
      previous: ['env:TESSERA_TEST_SESSION_PEPPER@v2', 'env:TESSERA_TEST_SESSION_PEPPER'],
    });
    expect(ring.current.version).toBe('v3');
    expect(ring.current.key).toEqual(key('c'));
    expect(ring.previous.map((entry) => entry.version)).toEqual(['v2', 'v1']);
    expect(ring.entries.map((entry) => entry.version)).toEqual(['v3', 'v2', 'v1']);
    expect(ring.byVersion('v1')?.key).toEqual(key('a'));
    expect(ring.byVersion('v4')).toBeUndefined();
    expect(Object.isFrozen(ring)).toBe(true);
  });

  it('hold at most five previous versions', () => {
    const previous = [5, 4, 3, 2, 1].map((v) => ({ version: `v${v}`, reference: `m:k@v${v}`, key: key(String(v)) }));
    expect(() => createKeyRing({ version: 'v6', reference: 'm:k@v6', key: key('6') }, previous)).not.toThrow();
    const six = [{ version: 'v6', reference: 'm:k@v6', key: key('6') }, ...previous];
    expect(() => createKeyRing({ version: 'v7', reference: 'm:k@v7', key: key('7') }, six)).toThrow(
      'at most 5 previous',
    );
  });

  it('refuse repeated versions, previous versions not below current, and short keys', () => {
    const current = { version: 'v2', reference: 'm:k@v2', key: key('b') };
    expect(() => createKeyRing(current, [{ version: 'v2', reference: 'm:j@v2', key: key('c') }])).toThrow(
      'appears twice',
    );
    expect(() => createKeyRing(current, [{ version: 'v3', reference: 'm:k@v3', key: key('c') }])).toThrow('not below');
    expect(() => createKeyRing({ ...current, key: Buffer.alloc(15, 1) })).toThrow('shorter than 16 bytes');
    expect(() => createKeyRing({ ...current, version: '2' })).toThrow('v<n>');
  });
});
