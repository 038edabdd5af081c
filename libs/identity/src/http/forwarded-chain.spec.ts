import { describe, expect, it } from '@jest/globals';
import { forwardedHops, parseNode, walkChain, xForwardedForHops } from './forwarded-chain.js';

describe('forwarded chains (identity-http §9.2)', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1:8080 ', '192.0.2.1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[::1]:443', '::1'],
    ['::ffff:192.0.2.9', '192.0.2.9'],
  ])('reads the node %p as %p', (raw, address) => {
    expect(parseNode(raw)).toBe(address);
  });

  it.each([
    'unknown',
    '_hidden',
    '',
    'host.example',
    '[192.0.2.1]',
    '192.0.2.1:',
    '[::1]x',
    '::1:99999',
    '1.2.3.4:5:6',
  ])('refuses the node %p', (raw) => {
    expect(parseNode(raw)).toBeUndefined();
  });

  it('parses RFC 7239 elements with quoted values, and refuses a malformed header as a whole', () => {
    expect(forwardedHops(['for=192.0.2.60;proto=HTTPS;host="id.example.com", for="[2001:db8::1]:443"'])).toEqual([
      { address: '192.0.2.60', proto: 'https', host: 'id.example.com' },
      { address: '2001:db8::1' },
    ]);
    expect(forwardedHops(['for=192.0.2.60;for=192.0.2.61'])).toBeNull();
    expect(forwardedHops(['for'])).toBeNull();
  });

  const trusted = (address: string) => address.startsWith('10.');

  it('walks right to left: the first untrusted hop is the client, every hop trusted gives the leftmost', () => {
    expect(walkChain(xForwardedForHops(['198.51.100.1, 203.0.113.7', '10.0.0.5']), '10.0.0.1', trusted).address).toBe(
      '203.0.113.7',
    );
    expect(walkChain(xForwardedForHops(['10.0.0.9, 10.0.0.5']), '10.0.0.1', trusted).address).toBe('10.0.0.9');
  });

  it('stops at the last trusted address on an unusable hop, so a client never picks its address', () => {
    expect(walkChain(xForwardedForHops(['203.0.113.7, garbage, 10.0.0.5']), '10.0.0.1', trusted).address).toBe(
      '10.0.0.5',
    );
  });
});
