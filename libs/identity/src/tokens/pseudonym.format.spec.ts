import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import { lengthPrefixed } from './keyed-digest.crypto.js';
import {
  pseudonymizeClientAddress,
  pseudonymizeUserAgent,
  rateLimitKey,
  truncateCodePoints,
} from './pseudonym.format.js';

const auditKey = Buffer.from('tessera-test-audit-key-000000001');
const hmac = (...fields: string[]): string =>
  crypto
    .createHmac('sha256', auditKey)
    .update(lengthPrefixed(...fields))
    .digest('base64url');

describe('audit pseudonyms', () => {
  it('pseudonymize a user agent as v1. + b64url(HMAC(audit key, domain ‖ value))', () => {
    expect(pseudonymizeUserAgent(auditKey, 'Mozilla/5.0')).toBe(
      `v1.${hmac('tessera-audit-user-agent-v1', 'Mozilla/5.0')}`,
    );
  });

  it('truncate the user agent to 2048 code points before pseudonymizing', () => {
    const long = `${'a'.repeat(2047)}😀tail`;
    const truncated = `${'a'.repeat(2047)}😀`;
    expect(pseudonymizeUserAgent(auditKey, long)).toBe(`v1.${hmac('tessera-audit-user-agent-v1', truncated)}`);
    expect(pseudonymizeUserAgent(auditKey, long)).toBe(pseudonymizeUserAgent(auditKey, `${truncated}other`));
  });

  it('pseudonymize client addresses in canonical form, distinct from user agents', () => {
    const expected = `v1.${hmac('tessera-audit-client-address-v1', '192.0.2.1')}`;
    expect(pseudonymizeClientAddress(auditKey, '192.0.2.1')).toBe(expected);
    expect(pseudonymizeClientAddress(auditKey, '::ffff:192.0.2.1')).toBe(expected);
    expect(pseudonymizeUserAgent(auditKey, '192.0.2.1')).not.toBe(expected);
  });

  it('never contain the raw value', () => {
    expect(pseudonymizeClientAddress(auditKey, '203.0.113.7')).not.toContain('203');
  });
});

describe('rate-limit keys', () => {
  it('are <policy>: + b64url(HMAC(audit key, tessera-rate-limit-v1 ‖ policy ‖ subject))', () => {
    const key = rateLimitKey(auditKey, 'recovery_code', '192.0.2.1');
    expect(key).toBe(`recovery_code:${hmac('tessera-rate-limit-v1', 'recovery_code', '192.0.2.1')}`);
    expect(key).not.toContain('192.0.2.1');
    expect(rateLimitKey(auditKey, 'bootstrap', '192.0.2.1').split(':')[1]).not.toBe(key.split(':')[1]);
  });
});

describe('truncateCodePoints', () => {
  it('counts code points and never splits a surrogate pair', () => {
    expect(truncateCodePoints('a😀b', 2)).toBe('a😀');
    expect(truncateCodePoints('abc', 5)).toBe('abc');
    expect(truncateCodePoints('😀😀😀', 1)).toBe('😀');
  });
});
