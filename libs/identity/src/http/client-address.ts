import { BlockList, isIP } from 'node:net';
import type { Exchange } from '@tessera/web';
import { forwardedHops, stripMapped, walkChain, xForwardedForHops } from './forwarded-chain.js';

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

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** What one header family says about the client: address, and scheme/host when it gives them. */
interface ForwardedView {
  readonly address: string;
  readonly proto: string | undefined;
  readonly host: string | undefined;
}

function viaXForwarded(exchange: Exchange, peer: string, trusted: (a: string) => boolean): ForwardedView | undefined {
  const forwardedFor = exchange.headerValues('x-forwarded-for');
  const proto = lastValue(exchange, 'x-forwarded-proto')?.toLowerCase();
  const host = lastValue(exchange, 'x-forwarded-host')?.toLowerCase();
  if (forwardedFor.length === 0 && proto === undefined && host === undefined) return undefined;
  return { address: walkChain(xForwardedForHops(forwardedFor), peer, trusted).address, proto, host };
}

function viaForwarded(exchange: Exchange, peer: string, trusted: (a: string) => boolean): ForwardedView | undefined {
  const values = exchange.headerValues('forwarded');
  if (values.length === 0) return undefined;
  const hops = forwardedHops(values);
  if (hops === null) return { address: peer, proto: undefined, host: undefined };
  const { address, hop } = walkChain(hops, peer, trusted);
  return { address, proto: hop?.proto, host: hop?.host };
}

const agree = (a: string | undefined, b: string | undefined) => a === undefined || b === undefined || a === b;

/**
 * The client, scheme and host: the direct peer (and `Host`, or the authority of an absolute-form
 * target) unless the peer is a trusted proxy. Behind trusted proxies, `X-Forwarded-For` and RFC 7239
 * `Forwarded` (`for=`) are walked right to left skipping trusted addresses (`ip:port` and
 * `[v6]:port` accepted); the first untrusted hop is the client. Scheme and host come from
 * `X-Forwarded-Proto`/`-Host` (last value) or from the client's `Forwarded` element.
 *
 * Precedence when both families are present: they must agree (same client address; same scheme and
 * host where both give one), and then `Forwarded` supplies what it has. When they disagree the
 * request is attributed to the direct peer with the direct scheme and host: a client can never pick
 * its address by adding the header family its proxy does not write. Spoofed headers from untrusted
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
    host: (exchange.targetAuthority ?? exchange.header('host') ?? '').toLowerCase(),
    trustedProxy: false,
  };
  if (trusted === null || !isTrusted(trusted, peer)) return direct;
  const check = (address: string) => isTrusted(trusted, address);
  const x = viaXForwarded(exchange, peer, check);
  const f = viaForwarded(exchange, peer, check);
  let view: ForwardedView;
  if (x !== undefined && f !== undefined) {
    const consistent = x.address === f.address && agree(x.proto, f.proto) && agree(x.host, f.host);
    view = consistent
      ? { address: f.address, proto: f.proto ?? x.proto, host: f.host ?? x.host }
      : { address: peer, proto: undefined, host: undefined };
  } else {
    view = f ?? x ?? { address: peer, proto: undefined, host: undefined };
  }
  return {
    address: view.address,
    scheme: view.proto === 'https' || view.proto === 'http' ? view.proto : direct.scheme,
    host: view.host ?? direct.host,
    trustedProxy: true,
  };
}
