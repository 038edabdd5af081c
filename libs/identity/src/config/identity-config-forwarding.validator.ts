import { isIPv4 } from 'node:net';
import { parseIpv6 } from '../tokens/client-address.format.js';
import type { ResolvedIdentityConfig } from './identity.config.js';
import { fail, oneOf } from './identity-config.rules.js';

/**
 * A parsed CIDR block: address bytes (4 or 16) and prefix length.
 *
 * @example
 * parseCidr('10.0.0.0/8'); // { bytes: [10, 0, 0, 0], prefix: 8 }
 */
export interface CidrBlock {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

/**
 * Parses `address/prefix` (IPv4 or IPv6). `undefined` when malformed, when the prefix is 0 or
 * out of range, or when host bits are set (`10.0.0.1/8`).
 *
 * @example
 * parseCidr('2001:db8::/32')?.prefix; // 32
 */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf('/');
  if (slash === -1 || !/^[0-9]{1,3}$/.test(text.slice(slash + 1))) return undefined;
  const address = text.slice(0, slash);
  const prefix = Number(text.slice(slash + 1));
  let bytes: number[];
  if (isIPv4(address)) {
    bytes = address.split('.').map(Number);
  } else {
    if (address.includes('%')) return undefined;
    const hextets = parseIpv6(address);
    if (hextets === undefined) return undefined;
    bytes = hextets.flatMap((h) => [h >> 8, h & 0xff]);
  }
  if (prefix < 1 || prefix > bytes.length * 8) return undefined;
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    if ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) return undefined;
  }
  return { bytes, prefix };
}

/**
 * Forwarding: `direct_only` (default) takes no CIDRs; `trusted_cidrs` needs at least one valid
 * network (no host bits, no `/0` catch-all).
 *
 * @example
 * validateForwarding(resolveIdentityConfig({ ...input, forwarding: { mode: 'trusted_cidrs', trustedCidrs: ['0.0.0.0/0'] } })); // throws
 */
export function validateForwarding(config: ResolvedIdentityConfig): void {
  const mode = oneOf('forwarding', 'forwarding.mode', config.forwarding.mode, [
    'direct_only',
    'trusted_cidrs',
  ] as const);
  const cidrs = config.forwarding.trustedCidrs;
  if (!Array.isArray(cidrs)) fail('forwarding', 'forwarding.trustedCidrs must be an array of CIDR blocks');
  if (mode === 'direct_only') {
    if (cidrs.length > 0)
      fail(
        'forwarding',
        'forwarding.trustedCidrs is ignored under mode "direct_only"; set mode "trusted_cidrs" or remove the list',
      );
    return;
  }
  if (cidrs.length === 0)
    fail(
      'forwarding',
      'forwarding.mode "trusted_cidrs" needs at least one entry in forwarding.trustedCidrs (e.g. "10.0.0.0/8")',
    );
  cidrs.forEach((cidr, i) => {
    if (typeof cidr !== 'string' || parseCidr(cidr) === undefined) {
      fail(
        'forwarding',
        `forwarding.trustedCidrs[${i}] must be a network address/prefix with no host bits set and a prefix ≥ 1 (e.g. "10.0.0.0/8", "2001:db8::/32")`,
      );
    }
  });
}
