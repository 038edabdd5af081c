import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { CapabilityAllowlists } from './identity.config.js';
import { developmentIdentityConfig as dev } from './identity-config.fixtures.js';
import { createIdentityConfig } from './identity-config.validator.js';

function messageFor(capabilities: Partial<CapabilityAllowlists>): string {
  try {
    createIdentityConfig(dev({ capabilities }));
  } catch (error) {
    expect(error).toBeInstanceOf(IdentityConfigError);
    expect((error as IdentityConfigError).rule).toBe('capability_allowlist');
    return (error as IdentityConfigError).message;
  }
  throw new Error('configuration was accepted');
}

describe('capability allowlists', () => {
  it('refuses malformed capability names', () => {
    expect(messageFor({ device: ['Content.Read'] })).toContain('capabilities.device[0] must be a capability name');
    expect(messageFor({ service: ['content'] })).toContain('capabilities.service[0] must be a capability name');
    expect(messageFor({ service: [`a.${'b'.repeat(199)}`] })).toContain('3..200 chars');
  });

  it('refuses a capability listed twice', () => {
    expect(messageFor({ device: ['content.read', 'content.read'] })).toContain('is listed twice');
  });

  it('refuses identity-owned capabilities as service scopes but allows them for devices', () => {
    expect(messageFor({ service: ['audit.read'] })).toContain('is identity-owned');
    expect(messageFor({ service: ['identity.account.recover'] })).toContain('is identity-owned');
    expect(createIdentityConfig(dev({ capabilities: { device: ['audit.read'] } })).capabilities.device).toEqual([
      'audit.read',
    ]);
  });
});
