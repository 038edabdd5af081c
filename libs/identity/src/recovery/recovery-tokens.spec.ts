import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import { encodeBase64Url } from '../tokens/base64url.codec.js';
import { keyedDigest } from '../tokens/keyed-digest.crypto.js';
import {
  digestLegacyRecoveryCode,
  formatRecoveryCode,
  generateRecoveryCodes,
  legacyRecoveryCodeMatches,
  parseRecoveryCode,
  recoveryCodeDigests,
} from './recovery-tokens.js';

const GROUPED =
  /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{6}$/;

function ring(...versions: string[]): KeyRing {
  const entries = versions.map((version) => ({ version, reference: `test@${version}`, key: randomBytes(32) }));
  return {
    current: entries[0]!,
    entries,
    byVersion: (version: string) => entries.find((entry) => entry.version === version),
  } as unknown as KeyRing;
}

const runtime = {
  clock: { now: () => new Date('2026-11-26T12:00:00Z') },
  random: { bytes: (n: number) => randomBytes(n) },
} as Parameters<typeof generateRecoveryCodes>[0];

describe('recovery codes (identity-model §2, issue 17)', () => {
  it('shows 128-bit secrets as 26 Crockford base32 characters in groups of 5-5-5-5-6', () => {
    const secret = randomBytes(16);
    const code = formatRecoveryCode(secret);
    expect(code).toMatch(GROUPED);
    expect(code.replaceAll('-', '')).toHaveLength(26);
    expect(parseRecoveryCode(code)).toEqual({ secret });
  });

  it('accepts a code in any case, without or with other hyphens and white space, O read as 0 and I, L as 1', () => {
    const secret = Buffer.alloc(16);
    secret[15] = 0x08; // the last character but one is '1'
    const code = formatRecoveryCode(secret);
    expect(code).toBe('00000-00000-00000-00000-000010');
    for (const typed of [
      code.toLowerCase(),
      code.replaceAll('-', ''),
      code.replaceAll('-', ' '),
      ` ${code.replaceAll('-', '  ')}\t`,
      'OOOOO-ooooo-00000-00000-0000I0',
      '00000 00000 00000 00000 0000l0',
      '0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-0-1-0',
    ])
      expect(parseRecoveryCode(typed)).toEqual({ secret });
  });

  it('refuses what is not a code: wrong length, U, other punctuation, non-zero padding bits', () => {
    const code = formatRecoveryCode(randomBytes(16));
    for (const wrong of [
      code.slice(0, -1),
      `${code}0`,
      `U${code.slice(1)}`,
      code.replaceAll('-', '.'),
      code.replaceAll('-', '_'),
      '00000-00000-00000-00000-000001',
      '',
    ])
      expect(parseRecoveryCode(wrong)).toBeUndefined();
  });

  it('stores a keyed digest of the secret alone under the current pepper and finds it under every version', () => {
    const keys = ring('v3', 'v2', 'v1');
    const { codes, rows } = generateRecoveryCodes(runtime, keys);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const [i, code] of codes.entries()) {
      expect(code).toMatch(GROUPED);
      const { secret } = parseRecoveryCode(code)!;
      expect(rows[i]).not.toHaveProperty('publicSelector');
      expect(rows[i]!.secretDigest).toEqual({
        algorithm: 'hmac-sha256',
        encoded: encodeBase64Url(keyedDigest(keys.current.key, 'tessera-recovery-code-v2', secret)),
        keyVersion: 'v3',
      });
      const digests = recoveryCodeDigests(keys, secret);
      expect(digests.map((digest) => digest.keyVersion)).toEqual(['v3', 'v2', 'v1']);
      expect(digests[0]).toEqual(rows[i]!.secretDigest);
      expect(digests[2]!.encoded).toBe(
        encodeBase64Url(keyedDigest(keys.entries[2]!.key, 'tessera-recovery-code-v2', secret)),
      );
    }
  });

  it('still accepts a code of the earlier <selector>.<secret> format, checked against its v1 digest', () => {
    const keys = ring('v2', 'v1');
    const selector = randomBytes(8).toString('base64url');
    const secret = randomBytes(16);
    const parts = parseRecoveryCode(`${selector}.${secret.toString('base64url')}`);
    expect(parts).toEqual({ secret, legacySelector: selector });
    const stored = {
      algorithm: 'hmac-sha256' as const,
      encoded: encodeBase64Url(digestLegacyRecoveryCode(keys.entries[1]!.key, selector, secret)),
      keyVersion: 'v1',
    };
    expect(legacyRecoveryCodeMatches(keys, selector, secret, stored)).toBe(true);
    expect(legacyRecoveryCodeMatches(keys, selector, randomBytes(16), stored)).toBe(false);
    expect(legacyRecoveryCodeMatches(keys, selector, secret, { ...stored, keyVersion: 'v9' })).toBe(false);
    expect(parseRecoveryCode(`${selector}.${secret.toString('base64url')}x`)).toBeUndefined();
  });
});
