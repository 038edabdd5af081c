import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { IdentityConfig } from './identity.config.js';
import { developmentIdentityConfig as dev, productionIdentityConfig as prod } from './identity-config.fixtures.js';
import { parseCidr } from './identity-config-forwarding.validator.js';
import { createIdentityConfig } from './identity-config.validator.js';

function configError(input: IdentityConfig): IdentityConfigError {
  try {
    createIdentityConfig(input);
  } catch (error) {
    if (error instanceof IdentityConfigError) return error;
    throw error;
  }
  throw new Error('configuration was accepted');
}

describe('forwarding', () => {
  it('refuses CIDRs under direct_only and an empty list under trusted_cidrs', () => {
    const ignored = configError(dev({ forwarding: { trustedCidrs: ['10.0.0.0/8'] } }));
    expect(ignored.rule).toBe('forwarding');
    expect(ignored.message).toContain('ignored under mode "direct_only"');
    const empty = configError(prod({ forwarding: { mode: 'trusted_cidrs' } }));
    expect(empty.message).toContain('needs at least one entry');
  });

  it.each(['10.0.0.1/8', '0.0.0.0/0', '::/0', '10.0.0.0', '10.0.0.0/33', 'proxy.internal/8', '2001:db8::1/32'])(
    'refuses the trusted CIDR %p (host bits, catch-all, malformed)',
    (cidr) => {
      const error = configError(prod({ forwarding: { mode: 'trusted_cidrs', trustedCidrs: [cidr] } }));
      expect(error.rule).toBe('forwarding');
      expect(error.message).toContain('forwarding.trustedCidrs[0] must be a network address/prefix');
    },
  );

  it('refuses an unknown mode', () => {
    expect(configError(dev({ forwarding: { mode: 'all' as never } })).message).toContain(
      "forwarding.mode must be one of 'direct_only', 'trusted_cidrs'",
    );
  });

  it('parses IPv4 and IPv6 networks', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ bytes: [10, 0, 0, 0], prefix: 8 });
    expect(parseCidr('2001:db8::/32')?.prefix).toBe(32);
    expect(parseCidr('192.0.2.1/32')?.prefix).toBe(32);
    expect(parseCidr('fe80::%eth0/64')).toBeUndefined();
  });
});
