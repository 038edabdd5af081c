import { describe, expect, it } from '@jest/globals';
import { CoreConfigError } from './core.errors.js';
import {
  assertCoreSessionTtl,
  generateCoreSessionToken,
  isCoreSessionToken,
  MAX_CORE_SESSION_TTL_SECONDS,
} from './session-token.js';

describe('core session tokens', () => {
  it('generates distinct tcs_-prefixed 256-bit base64url tokens', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => generateCoreSessionToken()));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^tcs_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
      expect(isCoreSessionToken(token)).toBe(true);
    }
  });

  it.each([
    '',
    'tcs_',
    `tcs_${'a'.repeat(42)}`,
    `tcs_${'a'.repeat(44)}`,
    `xcs_${'a'.repeat(43)}`,
    `tcs_${'a'.repeat(42)}=`,
    42,
  ])('rejects the malformed token %p', (token) => {
    expect(isCoreSessionToken(token)).toBe(false);
  });

  it('accepts whole-second TTLs from 1 s to 400 days only', () => {
    expect(() => assertCoreSessionTtl(1)).not.toThrow();
    expect(() => assertCoreSessionTtl(MAX_CORE_SESSION_TTL_SECONDS)).not.toThrow();
    for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_CORE_SESSION_TTL_SECONDS + 1]) {
      expect(() => assertCoreSessionTtl(ttl)).toThrow(CoreConfigError);
    }
  });
});
