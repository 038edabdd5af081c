import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate-limit subject of a request without a usable peer address.
 *
 * @example
 * rateLimitPeer(undefined) === UNKNOWN_PEER; // true
 */
export const UNKNOWN_PEER = 'unknown-peer';

/**
 * The canonical text of an IP address: IPv4 dotted quad, IPv4-mapped IPv6 as IPv4, other IPv6
 * in RFC 5952 form (lowercase, longest zero run compressed, zone id dropped). `undefined` when
 * `address` is not an IP address.
 *
 * @example
 * canonicalIpAddress('::FFFF:192.0.2.1'); // '192.0.2.1'
 * canonicalIpAddress('2001:DB8:0:0:0:0:0:1'); // '2001:db8::1'
 */
export function canonicalIpAddress(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const trimmed = address.trim();
  if (isIPv4(trimmed)) return trimmed;
  const hextets = parseIpv6(trimmed);
  if (hextets === undefined) return undefined;
  const mapped = ipv4Mapped(hextets);
  return mapped ?? formatIpv6(hextets);
}

/**
 * The peer subject for rate limiting (`identity-http.md` §10): IPv4 as is, IPv4-mapped IPv6 as
 * IPv4, other IPv6 keyed by its /64 (`2001:db8:1:2::/64`), no or unparseable address →
 * `unknown-peer`.
 *
 * @example
 * rateLimitPeer('2001:db8:1:2:aaaa::1'); // '2001:db8:1:2::/64'
 * rateLimitPeer(undefined); // 'unknown-peer'
 */
export function rateLimitPeer(address: string | undefined): string {
  if (address === undefined) return UNKNOWN_PEER;
  const trimmed = address.trim();
  if (isIPv4(trimmed)) return trimmed;
  const hextets = parseIpv6(trimmed);
  if (hextets === undefined) return UNKNOWN_PEER;
  const mapped = ipv4Mapped(hextets);
  if (mapped !== undefined) return mapped;
  return `${formatIpv6([...hextets.slice(0, 4), 0, 0, 0, 0])}/64`;
}

/**
 * Parses an IPv6 address (optionally with a `%zone`) into 8 hextets.
 *
 * @example
 * parseIpv6('::ffff:1.2.3.4'); // [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]
 */
export function parseIpv6(address: string): number[] | undefined {
  const zone = address.indexOf('%');
  const text = zone === -1 ? address : address.slice(0, zone);
  if (!isIPv6(text)) return undefined;
  let tail = text;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // Rewrite an embedded IPv4 tail (`::ffff:192.0.2.1`) as two hextets; isIPv6 already validated it.
    const [a, b, c, d] = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number) as [number, number, number, number];
    tail = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = tail.includes('::') ? tail.split('::') : [tail, undefined];
  const left = head === '' ? [] : head!.split(':').map((h) => Number.parseInt(h, 16));
  const right = rest === undefined || rest === '' ? [] : rest.split(':').map((h) => Number.parseInt(h, 16));
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const hextets = [...left, ...new Array<number>(Math.max(zeros, 0)).fill(0), ...right];
  return hextets.length === 8 ? hextets : undefined;
}

function ipv4Mapped(h: readonly number[]): string | undefined {
  if (h[0] !== 0 || h[1] !== 0 || h[2] !== 0 || h[3] !== 0 || h[4] !== 0 || h[5] !== 0xffff) return undefined;
  return `${h[6]! >> 8}.${h[6]! & 0xff}.${h[7]! >> 8}.${h[7]! & 0xff}`;
}

function formatIpv6(h: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const text = h.map((x) => x.toString(16));
  if (bestStart === -1) return text.join(':');
  return `${text.slice(0, bestStart).join(':')}::${text.slice(bestStart + bestLength).join(':')}`;
}
