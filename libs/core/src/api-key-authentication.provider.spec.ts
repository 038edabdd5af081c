import { describe, expect, it, jest } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import crypto from 'node:crypto';
import { ApiKeyAuthenticationProvider } from './api-key-authentication.provider.js';
import { CoreConfigError } from './core.errors.js';
import { sha256Hex } from './digest.js';

const GRAFANA_KEY = 'k_live_6f1d0a8c2b9e4f7a9c3d5e1f0a2b4c6d';
const BILLING_KEY = 'k_live_0000aaaa1111bbbb2222cccc3333dddd';

function provider(
  extra: Partial<ConstructorParameters<typeof ApiKeyAuthenticationProvider>[0]> = {},
): ApiKeyAuthenticationProvider {
  return new ApiKeyAuthenticationProvider({
    keys: [
      { digest: sha256Hex(GRAFANA_KEY), principal: { kind: 'api_key', id: 'grafana', permissions: ['metrics.read'] } },
      {
        digest: sha256Hex(BILLING_KEY),
        principal: { kind: 'api_key', id: 'billing', permissions: ['webhook.deliver'] },
      },
    ],
    ...extra,
  });
}

function withHeaders(headers: Record<string, string | string[]>) {
  return createTestExchange({ headers }).exchange;
}

describe('ApiKeyAuthenticationProvider', () => {
  it('authenticates each configured key as its own principal', async () => {
    const keys = provider();
    expect(await keys.authenticate(withHeaders({ 'x-api-key': GRAFANA_KEY }))).toEqual({
      kind: 'api_key',
      id: 'grafana',
      roles: [],
      permissions: ['metrics.read'],
    });
    expect((await keys.authenticate(withHeaders({ 'X-Api-Key': BILLING_KEY })))?.id).toBe('billing');
  });

  it('answers null without a key, with an empty key, or with a repeated header', async () => {
    const keys = provider();
    expect(await keys.authenticate(withHeaders({}))).toBeNull();
    expect(await keys.authenticate(withHeaders({ 'x-api-key': '' }))).toBeNull();
    expect(await keys.authenticate(withHeaders({ 'x-api-key': [GRAFANA_KEY, GRAFANA_KEY] }))).toBeNull();
  });

  it('rejects a wrong key, a key differing in one character, a prefix and a key with trailing data', async () => {
    const keys = provider();
    for (const attempt of [
      'wrong',
      `${GRAFANA_KEY.slice(0, -1)}e`,
      GRAFANA_KEY.slice(0, 10),
      `${GRAFANA_KEY}x`,
      GRAFANA_KEY.toUpperCase(),
    ]) {
      expect(await keys.authenticate(withHeaders({ 'x-api-key': attempt }))).toBeNull();
    }
  });

  it('rejects the configured digest presented as if it were the key', async () => {
    expect(await provider().authenticate(withHeaders({ 'x-api-key': sha256Hex(GRAFANA_KEY) }))).toBeNull();
  });

  it('rejects over-long and non-printable keys without hashing them', async () => {
    const keys = provider();
    const hash = jest.spyOn(crypto, 'createHash');
    try {
      expect(await keys.authenticate(withHeaders({ 'x-api-key': 'a'.repeat(513) }))).toBeNull();
      expect(await keys.authenticate(withHeaders({ 'x-api-key': 'abc\u00e9def' }))).toBeNull();
      expect(hash).not.toHaveBeenCalled();
    } finally {
      hash.mockRestore();
    }
  });

  it('compares the presented digest with every configured digest through timingSafeEqual, matching or not', async () => {
    const keys = provider();
    const compare = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      await keys.authenticate(withHeaders({ 'x-api-key': GRAFANA_KEY }));
      expect(compare).toHaveBeenCalledTimes(2);
      await keys.authenticate(withHeaders({ 'x-api-key': 'wrong' }));
      expect(compare).toHaveBeenCalledTimes(4);
      for (const [presented, configured] of compare.mock.calls) {
        expect((presented as Buffer).byteLength).toBe(32);
        expect((configured as Buffer).byteLength).toBe(32);
      }
    } finally {
      compare.mockRestore();
    }
  });

  it('reads a configurable header and an optional auth scheme', async () => {
    const bearer = provider({ header: 'authorization', scheme: 'Bearer' });
    expect((await bearer.authenticate(withHeaders({ authorization: `Bearer ${GRAFANA_KEY}` })))?.id).toBe('grafana');
    expect((await bearer.authenticate(withHeaders({ authorization: `bearer ${GRAFANA_KEY}` })))?.id).toBe('grafana');
    expect(await bearer.authenticate(withHeaders({ authorization: GRAFANA_KEY }))).toBeNull();
    expect(await bearer.authenticate(withHeaders({ authorization: `Basic ${GRAFANA_KEY}` }))).toBeNull();
    expect(await bearer.authenticate(withHeaders({ 'x-api-key': GRAFANA_KEY }))).toBeNull();
  });

  it('asks the resolver with the hex digest only, never the key, when no static key matched', async () => {
    const seen: string[] = [];
    const resolving = new ApiKeyAuthenticationProvider({
      resolve: async (digest) => {
        seen.push(digest);
        return digest === sha256Hex('db-key-1234567890') ? { kind: 'api_key', id: 'from-db', roles: ['ops'] } : null;
      },
    });
    expect((await resolving.authenticate(withHeaders({ 'x-api-key': 'db-key-1234567890' })))?.id).toBe('from-db');
    expect(await resolving.authenticate(withHeaders({ 'x-api-key': 'unknown' }))).toBeNull();
    expect(seen).toEqual([sha256Hex('db-key-1234567890'), sha256Hex('unknown')]);
  });

  it('fails closed when the resolver returns a malformed principal', async () => {
    const broken = new ApiKeyAuthenticationProvider({ resolve: async () => ({ kind: 'API KEY', id: '' }) });
    await expect(broken.authenticate(withHeaders({ 'x-api-key': 'anything' }))).rejects.toThrow(CoreConfigError);
  });

  it('propagates a resolver failure instead of treating the caller as anonymous', async () => {
    const down = new ApiKeyAuthenticationProvider({
      resolve: async () => {
        throw new Error('key store unavailable');
      },
    });
    await expect(down.authenticate(withHeaders({ 'x-api-key': 'anything' }))).rejects.toThrow('key store unavailable');
  });

  it.each([
    ['no keys and no resolver', {}],
    ['a raw key where a digest belongs', { keys: [{ digest: GRAFANA_KEY, principal: { kind: 'api_key', id: 'g' } }] }],
    [
      'an upper-case digest',
      { keys: [{ digest: sha256Hex('k').toUpperCase(), principal: { kind: 'api_key', id: 'g' } }] },
    ],
    [
      'a repeated digest',
      {
        keys: [
          { digest: sha256Hex('k'), principal: { kind: 'api_key', id: 'a' } },
          { digest: sha256Hex('k'), principal: { kind: 'api_key', id: 'b' } },
        ],
      },
    ],
    ['an invalid header name', { header: 'x api key', resolve: async () => null }],
    ['an invalid principal', { keys: [{ digest: sha256Hex('k'), principal: { kind: '', id: 'g' } }] }],
  ])('refuses configuration with %s', (_label, options) => {
    expect(() => new ApiKeyAuthenticationProvider(options as never)).toThrow(CoreConfigError);
  });

  it('never puts a key into its configuration error messages', () => {
    try {
      new ApiKeyAuthenticationProvider({ keys: [{ digest: GRAFANA_KEY, principal: { kind: 'api_key', id: 'g' } }] });
      throw new Error('expected a CoreConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(CoreConfigError);
      expect((error as Error).message).not.toContain(GRAFANA_KEY);
    }
  });
});
