import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { BasicAuthenticationProvider } from './basic-authentication.provider.js';
import type { BasicCredentials } from './basic-credentials.js';
import { CoreConfigError } from './core.errors.js';
import { constantTimeEqual } from './digest.js';

const basic = (userId: string, password: string) => `Basic ${Buffer.from(`${userId}:${password}`).toString('base64')}`;

function metrics(calls: BasicCredentials[] = []): BasicAuthenticationProvider {
  return new BasicAuthenticationProvider({
    realm: 'metrics',
    verify: async (credentials) => {
      calls.push(credentials);
      const userOk = constantTimeEqual(credentials.userId, 'prometheus');
      const passwordOk = constantTimeEqual(credentials.password, 's3cret-scrape');
      return userOk && passwordOk ? { kind: 'basic', id: credentials.userId, permissions: ['metrics.read'] } : null;
    },
  });
}

const exchangeWith = (headers: Record<string, string | string[]>) => createTestExchange({ headers }).exchange;

describe('BasicAuthenticationProvider', () => {
  it('authenticates credentials the verifier accepts', async () => {
    const principal = await metrics().authenticate(
      exchangeWith({ authorization: basic('prometheus', 's3cret-scrape') }),
    );
    expect(principal).toEqual({ kind: 'basic', id: 'prometheus', roles: [], permissions: ['metrics.read'] });
  });

  it('answers null for a wrong password or an unknown user', async () => {
    const provider = metrics();
    expect(await provider.authenticate(exchangeWith({ authorization: basic('prometheus', 'guess') }))).toBeNull();
    expect(await provider.authenticate(exchangeWith({ authorization: basic('root', 's3cret-scrape') }))).toBeNull();
  });

  it('never calls the verifier for absent, repeated or malformed Authorization headers', async () => {
    const calls: BasicCredentials[] = [];
    const provider = metrics(calls);
    const attempts: Record<string, string | string[]>[] = [
      {},
      { authorization: [basic('prometheus', 's3cret-scrape'), basic('prometheus', 's3cret-scrape')] },
      { authorization: 'Basic !!!notbase64' },
      { authorization: 'Basic cHJvbWV0aGV1cw==' }, // "prometheus", no colon
      { authorization: `Bearer ${Buffer.from('prometheus:s3cret-scrape').toString('base64')}` },
      { authorization: basic('prometheus', 'a\u0000b') },
    ];
    for (const headers of attempts) expect(await provider.authenticate(exchangeWith(headers))).toBeNull();
    expect(calls).toEqual([]);
  });

  it('challenges with the realm and the UTF-8 charset', () => {
    expect(metrics().challenge()).toBe('Basic realm="metrics", charset="UTF-8"');
  });

  it('fails closed when the verifier returns a malformed principal', async () => {
    const provider = new BasicAuthenticationProvider({
      realm: 'x',
      verify: async () => ({ kind: 'basic', id: 'u', roles: ['a b'] }),
    });
    await expect(provider.authenticate(exchangeWith({ authorization: basic('u', 'p') }))).rejects.toThrow(
      CoreConfigError,
    );
  });

  it.each([
    ['an empty realm', { realm: '', verify: async () => null }],
    ['a realm with a quote (header injection)', { realm: 'a", charset="latin1', verify: async () => null }],
    ['a realm with a line break', { realm: 'a\r\nSet-Cookie: x=1', verify: async () => null }],
    ['no verifier', { realm: 'metrics' }],
  ])('refuses configuration with %s', (_label, options) => {
    expect(() => new BasicAuthenticationProvider(options as never)).toThrow(CoreConfigError);
  });
});
