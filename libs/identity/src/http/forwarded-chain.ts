import { isIP } from 'node:net';

/** One hop of a forwarding chain as a proxy recorded it (RFC 7239 element or `X-Forwarded-For` entry). */
export interface ForwardedHop {
  /** The hop's address, normalised (no port, no brackets, IPv4-mapped IPv6 as IPv4); `undefined` when unusable. */
  readonly address: string | undefined;
  readonly proto?: string;
  readonly host?: string;
}

/**
 * A node as proxies write it: `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1`, `[2001:db8::1]`,
 * `[2001:db8::1]:443`; `undefined` for anything else (`unknown`, obfuscated `_names`, garbage).
 *
 * @example
 * parseNode('[::1]:443'); // '::1'
 */
export function parseNode(raw: string): string | undefined {
  const value = raw.trim();
  let address = value;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end === -1) return undefined;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    address = value.slice(1, end);
    if (isIP(address) !== 6) return undefined;
  } else if (isIP(value) === 0) {
    const colon = value.lastIndexOf(':');
    if (colon === -1 || value.indexOf(':') !== colon || !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined;
    address = value.slice(0, colon);
    if (isIP(address) !== 4) return undefined;
  }
  return stripMapped(address.toLowerCase());
}

/** IPv4-mapped IPv6 (`::ffff:192.0.2.1`) as IPv4. */
export function stripMapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** The `X-Forwarded-For` hops of every header line, left (client side) to right (nearest proxy). */
export function xForwardedForHops(values: readonly string[]): ForwardedHop[] {
  return values
    .flatMap((value) => value.split(','))
    .filter((entry) => entry.trim() !== '')
    .map((entry) => ({ address: parseNode(entry) }));
}

const PAIR = /^\s*([A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^";,\s]*)\s*$/;

/**
 * RFC 7239 `Forwarded` elements of every header line, left to right; `null` when a line is
 * malformed (the whole header is then unusable).
 *
 * @example
 * forwardedHops(['for=192.0.2.60;proto=https;host=id.example.com, for="[2001:db8::1]:443"']);
 */
export function forwardedHops(values: readonly string[]): ForwardedHop[] | null {
  const hops: ForwardedHop[] = [];
  for (const element of splitOutsideQuotes(values.join(','), ',')) {
    if (element.trim() === '') continue;
    const params = new Map<string, string>();
    for (const pair of splitOutsideQuotes(element, ';')) {
      const match = PAIR.exec(pair);
      if (match === null) return null;
      const name = match[1]!.toLowerCase();
      if (params.has(name)) return null;
      const raw = match[2]!;
      params.set(name, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
    }
    const forValue = params.get('for');
    hops.push({
      address: forValue === undefined ? undefined : parseNode(forValue),
      ...(params.has('proto') ? { proto: params.get('proto')!.toLowerCase() } : {}),
      ...(params.has('host') ? { host: params.get('host')!.toLowerCase() } : {}),
    });
  }
  return hops;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * Walks `hops` right to left from a trusted peer, skipping trusted addresses: the first untrusted
 * hop is the client; when every hop is trusted the leftmost one is. An unusable hop stops the walk
 * at the last trusted address seen (a proxy never lets its client pick an address).
 *
 * @example
 * walkChain(hops, '10.0.0.2', (a) => trusted.check(a)); // { address: '203.0.113.7', hop }
 */
export function walkChain(
  hops: readonly ForwardedHop[],
  peer: string,
  isTrusted: (address: string) => boolean,
): { address: string; hop: ForwardedHop | undefined } {
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (hop.address === undefined) return { address: current, hop: undefined };
    current = hop.address;
    if (!isTrusted(current)) return { address: current, hop };
  }
  return { address: current, hop: hops[0] };
}
