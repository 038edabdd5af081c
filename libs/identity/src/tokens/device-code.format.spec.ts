import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import fc from 'fast-check';
import type { RandomSource } from '../runtime/identity.runtime.js';
import { createKeyRing } from '../runtime/key-ring.resolver.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import { encodeBase64Url } from './base64url.codec.js';
import {
  deviceCodeLookupDigests,
  digestDeviceCode,
  digestUserCode,
  formatUserCode,
  generateDeviceCode,
  generateUserCode,
  issueDeviceCodes,
  normalizeUserCode,
  parseDeviceCode,
  USER_CODE_ALPHABET,
  userCodeLookupDigests,
} from './device-code.format.js';

const random = createNodeCryptoRandom();
const v1 = Buffer.from('tessera-test-device-pepper-v1-0001');
const v2 = Buffer.from('tessera-test-device-pepper-v2-0002');
const ring = createKeyRing({ version: 'v2', reference: 'memory:device@v2', key: v2 }, [
  { version: 'v1', reference: 'memory:device', key: v1 },
]);

function hmac(key: Buffer, ...fields: (string | Uint8Array)[]): Buffer {
  const mac = crypto.createHmac('sha256', key);
  for (const field of fields) {
    const bytes = typeof field === 'string' ? Buffer.from(field) : Buffer.from(field);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.byteLength);
    mac.update(length).update(bytes);
  }
  return mac.digest();
}

/** The reference reading of 5 bytes as eight 5-bit groups, through one 40-bit integer. */
function referenceUserCode(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let code = '';
  for (let i = 7; i >= 0; i--) code += USER_CODE_ALPHABET[Number((value >> BigInt(i * 5)) & 31n)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

describe('device codes (identity-model §2)', () => {
  it('are 43 base64url chars of 32 CSPRNG bytes and parse back to the same bytes', () => {
    const { token, bytes } = generateDeviceCode(random);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bytes).toHaveLength(32);
    expect(parseDeviceCode(token)).toEqual(bytes);
  });

  it('digest with the device pepper under tessera-device-code-v1', () => {
    const { bytes } = generateDeviceCode(random);
    expect(digestDeviceCode(v2, bytes)).toEqual(hmac(v2, 'tessera-device-code-v1', bytes));
  });

  it('reject a presented device code that is not exactly 32 strict base64url bytes', () => {
    const { token } = generateDeviceCode(random);
    expect(parseDeviceCode(token.slice(0, 42))).toBeUndefined();
    expect(parseDeviceCode(`${token}A`)).toBeUndefined();
    expect(parseDeviceCode(`${token.slice(0, 42)}B`)).toBeUndefined(); // non-zero trailing bits
    expect(parseDeviceCode(`${token.slice(0, 42)}=`)).toBeUndefined();
    expect(parseDeviceCode(encodeBase64Url(new Uint8Array(31)))).toBeUndefined();
    expect(parseDeviceCode(undefined)).toBeUndefined();
  });

  it('refuse a random source that returns the wrong number of bytes', () => {
    const short: RandomSource = { bytes: (size) => new Uint8Array(size - 1) };
    expect(() => generateDeviceCode(short)).toThrow(RangeError);
    expect(() => generateUserCode(short)).toThrow(RangeError);
  });
});

describe('user codes (identity-model §2)', () => {
  it('use the 32-symbol alphabet without 0, 1, I and O', () => {
    expect(USER_CODE_ALPHABET).toHaveLength(32);
    expect(new Set(USER_CODE_ALPHABET).size).toBe(32);
    expect(USER_CODE_ALPHABET).not.toMatch(/[01IO]/);
  });

  it('are XXXX-XXXX from 5 random bytes', () => {
    for (let i = 0; i < 50; i++) expect(generateUserCode(random)).toMatch(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
    expect(formatUserCode(new Uint8Array(5))).toBe('2222-2222');
    expect(formatUserCode(new Uint8Array(5).fill(0xff))).toBe('ZZZZ-ZZZZ');
    expect(() => formatUserCode(new Uint8Array(4))).toThrow(RangeError);
  });

  it('read the 40 bits as eight 5-bit symbols exactly (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 5, maxLength: 5 }), (bytes) => {
        expect(formatUserCode(bytes)).toBe(referenceUserCode(bytes));
      }),
    );
  });

  it('are unbiased: every symbol value at every position comes from exactly one 5-bit pattern', () => {
    // Setting one 5-bit group to each of its 32 values (others zero) yields 32 distinct symbols at
    // that position: the mapping is a bijection, so uniform bytes give uniform symbols.
    for (let position = 0; position < 8; position++) {
      const seen = new Set<string>();
      for (let value = 0; value < 32; value++) {
        const bits = BigInt(value) << BigInt((7 - position) * 5);
        const bytes = Buffer.from(bits.toString(16).padStart(10, '0'), 'hex');
        seen.add(formatUserCode(bytes).replace('-', '')[position]!);
      }
      expect(seen.size).toBe(32);
    }
  });

  it('normalize what a user types: trimmed, either case, dash optional', () => {
    expect(normalizeUserCode('WDJB-MJHT')).toBe('WDJB-MJHT');
    expect(normalizeUserCode('wdjb-mjht')).toBe('WDJB-MJHT');
    expect(normalizeUserCode('wdjbMJHT')).toBe('WDJB-MJHT');
    expect(normalizeUserCode('  wDjB-mJhT\n')).toBe('WDJB-MJHT');
    expect(normalizeUserCode('\twdjbmjht ')).toBe('WDJB-MJHT');
  });

  it.each([
    ['empty', ''],
    ['too short', 'WDJB-MJH'],
    ['too long', 'WDJB-MJHTX'],
    ['two dashes', 'WDJB--MJHT'],
    ['dash elsewhere', 'WDJ-BMJHT'],
    ['inner space', 'WDJB MJHT'],
    ['zero', 'WDJB-MJH0'],
    ['one', 'WDJB-MJH1'],
    ['letter I', 'WDJB-MJHI'],
    ['letter O', 'WDJB-MJHo'],
    ['long s that upper-cases to S', 'WDJB-MJH\u017f'],
    ['dotless i that upper-cases to I', 'WDJB-MJH\u0131'],
    ['fullwidth letter', 'WDJB-MJH\uff34'],
    ['en dash', 'WDJB\u2013MJHT'],
    ['underscore', 'WDJB_MJHT'],
  ])('reject a user code with %s', (_name, input) => {
    expect(normalizeUserCode(input)).toBeUndefined();
  });

  it('reject non-strings and oversized input before trimming', () => {
    expect(normalizeUserCode(undefined)).toBeUndefined();
    expect(normalizeUserCode(12345678)).toBeUndefined();
    expect(normalizeUserCode(`${' '.repeat(60)}WDJB-MJHT`)).toBeUndefined();
  });

  it('normalize every accepted spelling of a generated code back to it (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 5, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom('', ' ', '\t', '\n ', '  '),
        (bytes, lower, dash, pad) => {
          const code = formatUserCode(bytes);
          const symbols = code.replace('-', '').split('');
          const typed = symbols.map((c, i) => (lower[i] ? c.toLowerCase() : c));
          const spelled = `${typed.slice(0, 4).join('')}${dash ? '-' : ''}${typed.slice(4).join('')}`;
          expect(normalizeUserCode(`${pad}${spelled}${pad}`)).toBe(code);
        },
      ),
    );
  });

  it('never accept anything that is not a spelling of a user code (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (input) => {
        const normalized = normalizeUserCode(input);
        if (normalized === undefined) return;
        expect(normalized).toMatch(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
        expect(input.trim().replace('-', '').toUpperCase()).toBe(normalized.replace('-', ''));
      }),
    );
  });

  it('digest the canonical XXXX-XXXX form with the device pepper under tessera-device-user-code-v1', () => {
    expect(digestUserCode(v2, 'WDJB-MJHT')).toEqual(hmac(v2, 'tessera-device-user-code-v1', 'WDJB-MJHT'));
    expect(() => digestUserCode(v2, 'wdjbmjht')).toThrow(RangeError);
  });
});

describe('issued device codes and lookups by key version', () => {
  it('issue both codes with digests under the current key version only', () => {
    const issued = issueDeviceCodes(random, ring);
    const bytes = parseDeviceCode(issued.deviceCode)!;
    expect(issued.deviceCodeDigest).toEqual({
      algorithm: 'hmac-sha256',
      encoded: encodeBase64Url(hmac(v2, 'tessera-device-code-v1', bytes)),
      keyVersion: 'v2',
    });
    expect(issued.userCodeDigest).toEqual({
      algorithm: 'hmac-sha256',
      encoded: encodeBase64Url(hmac(v2, 'tessera-device-user-code-v1', issued.userCode)),
      keyVersion: 'v2',
    });
    expect(issued.deviceCodeDigest.encoded).not.toBe(issued.userCodeDigest.encoded);
  });

  it('look a device code up under every key version, current first', () => {
    const { bytes } = generateDeviceCode(random);
    const digests = deviceCodeLookupDigests(ring, bytes);
    expect(digests.map((d) => d.keyVersion)).toEqual(['v2', 'v1']);
    expect(digests[1]!.encoded).toBe(encodeBase64Url(digestDeviceCode(v1, bytes)));
  });

  it('look a typed user code up under every key version, and a digest made under v1 is found', () => {
    const issuedUnderV1 = issueDeviceCodes(
      random,
      createKeyRing({ version: 'v1', reference: 'memory:device', key: v1 }),
    );
    const typed = issuedUnderV1.userCode.toLowerCase().replace('-', '');
    const digests = userCodeLookupDigests(ring, ` ${typed} `)!;
    expect(digests.map((d) => d.keyVersion)).toEqual(['v2', 'v1']);
    expect(digests).toContainEqual(issuedUnderV1.userCodeDigest);
    expect(userCodeLookupDigests(ring, 'WDJB-MJH0')).toBeUndefined();
  });
});
