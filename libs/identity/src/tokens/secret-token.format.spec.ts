import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FrozenClock } from '../runtime/frozen.clock.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import { encodeBase64Url } from './base64url.codec.js';
import { keyedDigest } from './keyed-digest.crypto.js';
import {
  digestCsrfToken,
  digestInvitationToken,
  digestSessionSecret,
  generateCsrfToken,
  generateInvitationToken,
  generateSessionToken,
  hasOpaqueTokenShape,
  parseInvitationToken,
  parseSessionToken,
  verifyCsrfToken,
} from './secret-token.format.js';

const clock = new FrozenClock('2026-07-14T08:15:30Z');
const random = createNodeCryptoRandom();
const pepper = Buffer.from('tessera-test-session-pepper-0001');

describe('session tokens', () => {
  it('are <uuidv7>.<43 chars> (80 chars) and parse back to the same id and secret', () => {
    const issued = generateSessionToken(clock, random);
    expect(issued.token).toHaveLength(80);
    expect(issued.token).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    const parsed = parseSessionToken(issued.token);
    expect(parsed?.selector).toBe(issued.selector);
    expect(parsed?.secret).toEqual(issued.secret);
  });

  it('digest with the session pepper under the tessera-session-v1 domain', () => {
    const { secret } = generateSessionToken(clock, random);
    expect(digestSessionSecret(pepper, secret)).toEqual(keyedDigest(pepper, 'tessera-session-v1', secret));
  });

  it('apply the outer bearer shape first: 20..512 chars, exactly one dot, token characters', () => {
    expect(hasOpaqueTokenShape(`${'a'.repeat(9)}.${'b'.repeat(10)}`)).toBe(true);
    expect(hasOpaqueTokenShape(`${'a'.repeat(9)}.${'b'.repeat(9)}`)).toBe(false);
    expect(hasOpaqueTokenShape(`${'a'.repeat(300)}.${'b'.repeat(212)}`)).toBe(false);
    expect(hasOpaqueTokenShape(`${'a'.repeat(10)}..${'b'.repeat(10)}`)).toBe(false);
    expect(hasOpaqueTokenShape(`${'a'.repeat(10)}.${'b'.repeat(5)}.${'c'.repeat(5)}`)).toBe(false);
    expect(hasOpaqueTokenShape(`.${'b'.repeat(25)}`)).toBe(false);
    expect(hasOpaqueTokenShape(`${'a'.repeat(10)}.${'b'.repeat(9)}=`)).toBe(false);
    expect(hasOpaqueTokenShape(undefined)).toBe(false);
  });

  it('reject a forged cookie whose selector is not a canonical UUIDv7 or whose secret is not 32 bytes', () => {
    const { selector, token } = generateSessionToken(clock, random);
    const secretText = token.slice(37);
    expect(parseSessionToken(`${selector.toUpperCase()}.${secretText}`)).toBeUndefined();
    expect(parseSessionToken(`${selector}.${secretText.slice(0, 42)}`)).toBeUndefined();
    expect(parseSessionToken(`${selector}.${encodeBase64Url(new Uint8Array(33))}`)).toBeUndefined();
    expect(parseSessionToken(`${selector}.${secretText.slice(0, 42)}B`)).toBeUndefined(); // non-zero trailing bits
  });

  it('never parses arbitrary strings into a token (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (value) => {
        const parsed = parseSessionToken(value);
        if (parsed !== undefined) expect(parsed.token).toBe(value);
      }),
    );
  });
});

describe('CSRF tokens', () => {
  it('are 43 characters of 32 random bytes and verify against their stored digest', () => {
    const csrf = generateCsrfToken(random);
    expect(csrf.token).toHaveLength(43);
    expect(csrf.bytes).toHaveLength(32);
    const stored = digestCsrfToken(pepper, csrf.bytes);
    expect(stored).toEqual(keyedDigest(pepper, 'tessera-csrf-v1', csrf.bytes));
    expect(verifyCsrfToken(csrf.token, pepper, stored)).toBe(true);
  });

  it('reject a token of another session, another pepper, or a non-32-byte value', () => {
    const csrf = generateCsrfToken(random);
    const stored = digestCsrfToken(pepper, csrf.bytes);
    expect(verifyCsrfToken(generateCsrfToken(random).token, pepper, stored)).toBe(false);
    expect(verifyCsrfToken(csrf.token, Buffer.from('another-pepper-of-32-bytes-long!'), stored)).toBe(false);
    expect(verifyCsrfToken(encodeBase64Url(csrf.bytes.subarray(0, 31)), pepper, stored)).toBe(false);
    expect(verifyCsrfToken(`${csrf.token}=`, pepper, stored)).toBe(false);
    expect(verifyCsrfToken(undefined, pepper, stored)).toBe(false);
  });
});

describe('invitation tokens', () => {
  it('are 43-character 256-bit secrets digested with the recovery pepper', () => {
    const invitation = generateInvitationToken(random);
    expect(invitation.token).toHaveLength(43);
    const secret = parseInvitationToken(invitation.token);
    expect(secret).toEqual(invitation.bytes);
    expect(digestInvitationToken(pepper, secret!)).toEqual(keyedDigest(pepper, 'tessera-invitation-v1', secret!));
    expect(parseInvitationToken(invitation.token.slice(1))).toBeUndefined();
  });
});
