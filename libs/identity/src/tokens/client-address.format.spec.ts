import { describe, expect, it } from '@jest/globals';
import { canonicalIpAddress, parseIpv6, rateLimitPeer } from './client-address.format.js';

describe('rate-limit peer', () => {
  it.each([
    ['192.0.2.10', '192.0.2.10'],
    ['::ffff:192.0.2.10', '192.0.2.10'],
    ['::FFFF:c000:020a', '192.0.2.10'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['::1', '::/64'],
    [undefined, 'unknown-peer'],
    ['', 'unknown-peer'],
    ['not-an-ip', 'unknown-peer'],
  ])('keys %p as %p', (address, expected) => {
    expect(rateLimitPeer(address)).toBe(expected);
  });

  it('puts every address of one /64 into the same bucket (IPv6 rotation cannot escape the limit)', () => {
    expect(rateLimitPeer('2001:db8:aa:bb:1::1')).toBe(rateLimitPeer('2001:db8:aa:bb:ffff:eeee:dddd:cccc'));
    expect(rateLimitPeer('2001:db8:aa:bb::1')).not.toBe(rateLimitPeer('2001:db8:aa:bc::1'));
  });
});

describe('canonicalIpAddress', () => {
  it('formats IPv6 in RFC 5952 form and IPv4-mapped addresses as IPv4', () => {
    expect(canonicalIpAddress('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalIpAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIpAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonicalIpAddress('::')).toBe('::');
    expect(canonicalIpAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(canonicalIpAddress('64:ff9b::192.0.2.33')).toBe('64:ff9b::c000:221');
    expect(canonicalIpAddress('10.1.2.3')).toBe('10.1.2.3');
    expect(canonicalIpAddress('example.com')).toBeUndefined();
  });

  it('parses embedded IPv4 tails into hextets', () => {
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6('1.2.3.4')).toBeUndefined();
  });
});
