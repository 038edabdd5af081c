import { describe, expect, it } from '@jest/globals';
import { deviceCapabilitiesByRole } from './device-capabilities.js';

describe('deviceCapabilitiesByRole', () => {
  it('gives every role the identity device capabilities and only publishers and above package.publish', () => {
    expect(deviceCapabilitiesByRole()).toEqual({
      owner: ['identity.profile', 'identity.organizations', 'organization.read', 'package.publish'],
      admin: ['identity.profile', 'identity.organizations', 'organization.read', 'package.publish'],
      publisher: ['identity.profile', 'identity.organizations', 'organization.read', 'package.publish'],
      viewer: ['identity.profile', 'identity.organizations', 'organization.read'],
    });
  });

  it('never lists a capability outside the device allowlist it is given, even one every role holds', () => {
    expect(deviceCapabilitiesByRole(['organization.read', 'audit.read'])).toEqual({
      owner: ['organization.read', 'audit.read'],
      admin: ['organization.read', 'audit.read'],
      publisher: ['organization.read'],
      viewer: ['organization.read'],
    });
    expect(deviceCapabilitiesByRole(['identity.profile']).owner).toEqual(['identity.profile']);
  });
});
