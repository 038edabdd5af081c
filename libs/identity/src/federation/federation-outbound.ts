import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { IdentityEnvironment } from '../config/identity.config.js';
import { IdentityHttpClientError } from '../runtime/node-http.client.js';
import type { IdentityHttpClient, IdentityHttpRequest, IdentityHttpResponse } from '../runtime/identity.runtime.js';
import { isHardened } from '../config/identity-config.rules.js';

/** Address ranges an identity provider must never resolve to outside development and test. */
const NON_PUBLIC = (() => {
  const list = new net.BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['::', 96],
    ['2002::', 16],
    ['fec0::', 10],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6');
  }
  return list;
})();

/**
 * `true` when `address` (an IP literal) is loopback, private, link-local, shared, documentation,
 * multicast, reserved or an IPv4-mapped IPv6 address.
 *
 * @example
 * isNonPublicAddress('10.1.2.3'); // true
 */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  // IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is refused outright: a net.BlockList IPv6 rule for it would
  // also match every IPv4 address.
  if (family === 6 && /^::ffff:/i.test(address)) return true;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves a host name to every address (A and AAAA). */
export type HostLookup = (hostname: string) => Promise<readonly string[]>;

const systemLookup: HostLookup = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The outbound URL policy of federation fetches (OIDC discovery, JWKS, token endpoint) around the
 * runtime HTTP client, which already refuses non-https (but loopback), user-info, redirects and
 * oversized answers. In staging and production it also refuses any host that is, or resolves to,
 * a non-public address ({@link isNonPublicAddress}), so a registration cannot point the server
 * at its own network. In development and test a local IdP (`http://localhost`) is allowed.
 * Refusals throw `IdentityHttpClientError('url_refused')`.
 *
 * The check resolves the name before the client connects; a custom runtime HTTP client that pins
 * the checked address closes the remaining DNS-rebinding window.
 *
 * @example
 * const http = federationHttpClient(runtime.httpClient, config.environment);
 */
export function federationHttpClient(
  client: IdentityHttpClient,
  environment: IdentityEnvironment,
  lookup: HostLookup = systemLookup,
): IdentityHttpClient {
  if (!isHardened(environment)) return client;
  return {
    followsRedirects: false,
    selfTest: () => client.selfTest(),
    async request(request: IdentityHttpRequest): Promise<IdentityHttpResponse> {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        throw new IdentityHttpClientError('url_refused', 'malformed outbound URL');
      }
      if (url.protocol !== 'https:') throw new IdentityHttpClientError('url_refused', 'outbound URL must be https');
      const host = url.hostname.replace(/^\[|\]$/g, '');
      let addresses: readonly string[];
      if (net.isIP(host) !== 0) {
        addresses = [host];
      } else {
        try {
          addresses = await lookup(host);
        } catch (cause) {
          throw new IdentityHttpClientError('network', 'outbound host did not resolve', { cause });
        }
      }
      if (addresses.length === 0 || addresses.some(isNonPublicAddress)) {
        throw new IdentityHttpClientError('url_refused', 'outbound host is not a public address');
      }
      return client.request(request);
    },
  };
}
