import { BlockList, isIP } from 'node:net';
import type { Exchange } from '@tessera/web';

/** How forwarded headers are trusted (identity-http §9.2). */
export type ForwardingSettings =
  { readonly mode: 'direct_only' } | { readonly mode: 'trusted_cidrs'; readonly trustedCidrs: readonly string[] };

/** The client as the identity platform sees it after trusted-proxy resolution. */
export interface ResolvedClient {
  /** Client address ('' when unknown). */
  readonly address: string;
  readonly scheme: 'http' | 'https';
  /** Host (with port when not default), lower-cased. */
  readonly host: string;
  /** `true` when forwarded headers from a trusted proxy were used. */
  readonly trustedProxy: boolean;
}

/** Builds the trusted-proxy matcher once (CIDRs validated at configuration time). */
export function trustedProxyList(settings: ForwardingSettings): BlockList | null {
  if (settings.mode !== 'trusted_cidrs') return null;
  const list = new BlockList();
  for (const cidr of settings.trustedCidrs) {
    const [network, prefix] = cidr.split('/');
    const family = isIP(network ?? '');
    if (family === 0 || prefix === undefined) throw new RangeError(`Invalid CIDR ${cidr}`);
    list.addSubnet(network!, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

function lastValue(exchange: Exchange, name: string): string | undefined {
  const values = exchange.headerValues(name).flatMap((v) => v.split(','));
  const last = values[values.length - 1]?.trim();
  return last === undefined || last === '' ? undefined : last;
}

function stripMapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address, scheme and host: the direct peer unless it is a trusted proxy, in which
 * case the last `X-Forwarded-For`/`-Proto`/`-Host` values count. Spoofed headers from untrusted
 * peers are ignored.
 *
 * @example
 * const client = resolveClient(exchange, trustedProxyList(config.forwarding));
 */
export function resolveClient(exchange: Exchange, trusted: BlockList | null): ResolvedClient {
  const peer = stripMapped(exchange.peer.address);
  const socket = (exchange.raw.req as { socket?: { encrypted?: boolean } }).socket;
  const direct: ResolvedClient = {
    address: peer,
    scheme: socket?.encrypted === true ? 'https' : 'http',
    host: (exchange.header('host') ?? '').toLowerCase(),
    trustedProxy: false,
  };
  if (trusted === null || !isTrusted(trusted, peer)) return direct;
  const forwardedFor = lastValue(exchange, 'x-forwarded-for');
  const proto = lastValue(exchange, 'x-forwarded-proto')?.toLowerCase();
  const host = lastValue(exchange, 'x-forwarded-host')?.toLowerCase();
  return {
    address: forwardedFor !== undefined && isIP(stripMapped(forwardedFor)) !== 0 ? stripMapped(forwardedFor) : peer,
    scheme: proto === 'https' || proto === 'http' ? proto : direct.scheme,
    host: host ?? direct.host,
    trustedProxy: true,
  };
}
