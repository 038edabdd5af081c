import { describe, expect, it } from '@jest/globals';
import * as publicApi from './index.js';
import { IDENTITY_KERNEL } from './identity.tokens.js';

describe('@tessera/identity public API', () => {
  it('does not export the identity kernel token (every pepper, key and the raw store)', () => {
    expect(Object.keys(publicApi)).not.toContain('IDENTITY_KERNEL');
    expect(Object.values(publicApi)).not.toContain(IDENTITY_KERNEL);
  });

  it('still exports the narrower services a host uses instead', () => {
    expect(Object.keys(publicApi)).toEqual(
      expect.arrayContaining(['IdentityModule', 'IdentityService', 'IdentityInvitations', 'IdentityAudit']),
    );
  });
});
