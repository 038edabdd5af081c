import { describe, expect, it } from '@jest/globals';
import type { IdentityHttpClient, IdentityHttpRequest } from '../runtime/identity.runtime.js';
import { federationHttpClient, isNonPublicAddress } from './federation-outbound.js';

function recordingClient(): IdentityHttpClient & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    followsRedirects: false,
    selfTest: () => true,
    request: async (request: IdentityHttpRequest) => {
      seen.push(request.url);
      return { status: 200, headers: {}, body: Buffer.from('{}') };
    },
  };
}

describe('federation outbound URL policy', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.8',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('classifies %s as non-public', (address) => expect(isNonPublicAddress(address)).toBe(true));

  it.each(['93.184.216.34', '2606:4700:4700::1111', '8.8.8.8'])('classifies %s as public', (address) =>
    expect(isNonPublicAddress(address)).toBe(false),
  );

  it('leaves development and test to the runtime client (a local IdP works)', () => {
    const client = recordingClient();
    expect(federationHttpClient(client, 'development')).toBe(client);
    expect(federationHttpClient(client, 'test')).toBe(client);
  });

  it('refuses in production a host that resolves to a private address, or plain http', async () => {
    const client = recordingClient();
    const lookup = async (host: string) => (host === 'idp.example.com' ? ['93.184.216.34'] : ['10.1.2.3']);
    const guarded = federationHttpClient(client, 'production', lookup);
    await expect(
      guarded.request({ method: 'GET', url: 'https://idp.example.com/.well-known/openid-configuration' }),
    ).resolves.toMatchObject({ status: 200 });
    await expect(guarded.request({ method: 'GET', url: 'https://internal.example.com/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
    await expect(guarded.request({ method: 'GET', url: 'https://127.0.0.1/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
    await expect(guarded.request({ method: 'GET', url: 'https://[::1]/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
    await expect(guarded.request({ method: 'GET', url: 'http://idp.example.com/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
    expect(client.seen).toEqual(['https://idp.example.com/.well-known/openid-configuration']);
  });

  it('refuses when one of several resolved addresses is private (no partial trust)', async () => {
    const guarded = federationHttpClient(recordingClient(), 'staging', async () => ['93.184.216.34', '192.168.0.10']);
    await expect(guarded.request({ method: 'GET', url: 'https://idp.example.com/' })).rejects.toMatchObject({
      code: 'url_refused',
    });
  });
});
