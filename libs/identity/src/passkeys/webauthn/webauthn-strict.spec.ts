import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { cborDeeplyNested, cborHead, encodeCbor } from '@tessera/identity-testing';
import { AUTH_FLAGS, parseAuthenticatorData } from './authenticator-data.js';
import { CBOR_MAX_ITEMS, decodeCanonicalCbor } from './cbor.decoder.js';
import { isStrictDerSignature, parseClientData } from './client-data.js';
import {
  parseAuthenticationCredential,
  parseRegistrationCredential,
  parseTransports,
} from './credential-json.parser.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const b64 = (data: Uint8Array | string) => Buffer.from(data).toString('base64url');

describe('decodeCanonicalCbor', () => {
  it('decodes canonical maps, arrays, integers, strings and booleans', () => {
    const encoded = encodeCbor(
      new Map<number | string, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        ['fmt', 'none'],
      ]) as never,
    );
    const { value } = decodeCanonicalCbor(encoded);
    expect(value).toEqual(
      new Map<number | string, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        ['fmt', 'none'],
      ]),
    );
    expect(decodeCanonicalCbor(bytes(0x83, 0x01, 0xf5, 0xf4)).value).toEqual([1, true, false]);
  });

  it.each([
    ['non-minimal integer', bytes(0x18, 0x05)],
    ['non-minimal length', Buffer.concat([cborHead(3, 1, 1), Buffer.from('a')])],
    ['indefinite length', bytes(0x9f, 0x01, 0xff)],
    ['tag', bytes(0xc0, 0x01)],
    ['float', bytes(0xf9, 0x3c, 0x00)],
    ['null', bytes(0xf6)],
    ['undefined', bytes(0xf7)],
    ['trailing bytes', bytes(0x01, 0x02)],
    ['truncated', bytes(0x42, 0x01)],
    ['keys out of order', bytes(0xa2, 0x03, 0x01, 0x01, 0x01)],
    ['duplicate keys', bytes(0xa2, 0x01, 0x01, 0x01, 0x02)],
    ['text key before integer key', bytes(0xa2, 0x61, 0x61, 0x01, 0x01, 0x01)],
    ['invalid UTF-8', bytes(0x62, 0xc3, 0x28)],
    ['too deep', cborDeeplyNested(9)],
  ])('rejects %s', (_name, input) => {
    expect(() => decodeCanonicalCbor(input)).toThrow(/CBOR rejected/);
  });

  it('orders keys by major type first, then length, then bytes (CTAP2)', () => {
    expect(() => decodeCanonicalCbor(bytes(0xa2, 0x18, 0x18, 0x01, 0x20, 0x01))).not.toThrow();
    expect(() => decodeCanonicalCbor(bytes(0xa2, 0x20, 0x01, 0x18, 0x18, 0x01))).toThrow();
  });

  it(`rejects more than ${CBOR_MAX_ITEMS} items`, () => {
    const many = encodeCbor(Array.from({ length: CBOR_MAX_ITEMS }, () => 0));
    expect(() => decodeCanonicalCbor(many)).toThrow(/too many items/);
  });
});

describe('parseAuthenticatorData', () => {
  const rpIdHash = createHash('sha256').update('localhost').digest();
  const assertion = (flags: number, extra: Uint8Array = new Uint8Array()) =>
    Buffer.concat([rpIdHash, bytes(flags), bytes(0, 0, 0, 7), extra]);
  const UPUV = AUTH_FLAGS.userPresent | AUTH_FLAGS.userVerified;

  it('accepts UP+UV assertion data and reads counter and backup flags', () => {
    const parsed = parseAuthenticatorData(assertion(UPUV | AUTH_FLAGS.backupEligible | AUTH_FLAGS.backedUp), {
      registration: false,
    });
    expect(parsed).toMatchObject({ ok: true, value: { signCount: 7, backupEligible: true, backedUp: true } });
  });

  it.each([
    ['user_presence_missing', AUTH_FLAGS.userVerified],
    ['user_verification_missing', AUTH_FLAGS.userPresent],
    ['reserved_flags_set', UPUV | AUTH_FLAGS.reserved1],
    ['reserved_flags_set', UPUV | AUTH_FLAGS.reserved2],
    ['backup_state_without_eligibility', UPUV | AUTH_FLAGS.backedUp],
    ['extensions_present', UPUV | AUTH_FLAGS.extensionData],
    ['attested_data_mismatch', UPUV | AUTH_FLAGS.attestedCredentialData],
  ])('refuses %s', (reason, flags) => {
    expect(parseAuthenticatorData(assertion(flags), { registration: false })).toEqual({ ok: false, reason });
  });

  it('refuses trailing bytes and short data', () => {
    expect(parseAuthenticatorData(assertion(UPUV, bytes(0)), { registration: false }).ok).toBe(false);
    expect(parseAuthenticatorData(rpIdHash, { registration: false }).ok).toBe(false);
  });

  it('accepts an exact ES256 P-256 COSE key in attested data, not an EC2 key naming RS256 or extra members', () => {
    const x = new Uint8Array(32).fill(1);
    const y = new Uint8Array(32).fill(2);
    const attested = (key: Map<number, unknown>) => {
      const id = bytes(9, 9, 9, 9);
      const body = Buffer.concat([new Uint8Array(16), bytes(0, id.length), id, encodeCbor(key as never)]);
      return assertion(UPUV | AUTH_FLAGS.attestedCredentialData, body);
    };
    const good = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, x],
      [-3, y],
    ]);
    expect(parseAuthenticatorData(attested(good), { registration: true }).ok).toBe(true);
    const rs256 = new Map<number, unknown>([
      [1, 2],
      [3, -257],
      [-1, 1],
      [-2, x],
      [-3, y],
    ]);
    expect(parseAuthenticatorData(attested(rs256), { registration: true })).toEqual({
      ok: false,
      reason: 'public_key_unsupported',
    });
    const extra = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, x],
      [-3, y],
      [-4, x],
    ]);
    expect(parseAuthenticatorData(attested(extra), { registration: true }).ok).toBe(false);
  });
});

describe('client data and signatures', () => {
  const data = (value: unknown) => Buffer.from(JSON.stringify(value));
  const base = { type: 'webauthn.get', challenge: 'abc', origin: 'http://localhost:3000' };

  it('accepts the standard members and tolerates extra ones', () => {
    expect(parseClientData(data({ ...base, crossOrigin: false, other_keys_can_be_added_here: 'x' }))).toEqual(base);
  });

  it.each([
    ['crossOrigin true', { ...base, crossOrigin: true }],
    ['topOrigin', { ...base, topOrigin: 'https://evil.example' }],
    ['token binding present', { ...base, tokenBinding: { status: 'present', id: 'x' } }],
    ['missing origin', { type: 'webauthn.get', challenge: 'abc' }],
    ['non-string type', { ...base, type: 1 }],
  ])('refuses %s', (_name, value) => {
    expect(parseClientData(data(value))).toBeUndefined();
  });

  it('refuses duplicate keys and invalid UTF-8', () => {
    expect(parseClientData(Buffer.from('{"type":"a","type":"b","challenge":"c","origin":"d"}'))).toBeUndefined();
    expect(parseClientData(bytes(0x7b, 0xc3, 0x28, 0x7d))).toBeUndefined();
  });

  it('accepts minimal DER only', () => {
    expect(isStrictDerSignature(bytes(0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01))).toBe(true);
    expect(isStrictDerSignature(bytes(0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01))).toBe(false);
    expect(isStrictDerSignature(bytes(0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01))).toBe(false);
    expect(isStrictDerSignature(bytes(0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00))).toBe(false);
  });
});

describe('credential JSON', () => {
  const registration = {
    id: b64('cred'),
    rawId: b64('cred'),
    type: 'public-key',
    response: { clientDataJSON: b64('{}'), attestationObject: b64('x'), transports: ['internal', 'smart-card'] },
    clientExtensionResults: {},
  };

  it('decodes a registration credential and its transports', () => {
    expect(parseRegistrationCredential(registration)?.transports).toEqual(['internal', 'smart-card']);
  });

  it('refuses unknown members, unknown or repeated transports and padded base64url', () => {
    expect(parseRegistrationCredential({ ...registration, extra: 1 })).toBeUndefined();
    expect(parseTransports(['usb', 'quantum'])).toBeUndefined();
    expect(parseTransports(['usb', 'usb'])).toBeUndefined();
    expect(parseTransports(Array.from({ length: 9 }, () => 'usb'))).toBeUndefined();
    const padded = { ...registration, rawId: `${b64('credx')}=` };
    expect(parseRegistrationCredential(padded)).toBeUndefined();
  });

  it('refuses an id that is not strict base64url, whatever rawId says', () => {
    for (const id of [`${b64('credx')}=`, 'cred+id/', 'Y3JlZA.', 'AB', 'A'.repeat(5465)])
      expect(parseRegistrationCredential({ ...registration, id })).toBeUndefined();
    expect(parseRegistrationCredential({ ...registration, id: b64('other') })).toBeDefined();
  });

  it('bounds the signature string (8..683 chars, ≤ 512 bytes for RS256-4096) and the user handle', () => {
    const assertion = {
      id: b64('cred'),
      rawId: b64('cred'),
      type: 'public-key',
      response: {
        clientDataJSON: b64('{}'),
        authenticatorData: b64(new Uint8Array(37)),
        signature: b64(new Uint8Array(70)),
        userHandle: b64('user'),
      },
      clientExtensionResults: {},
    };
    expect(parseAuthenticationCredential(assertion)).toBeDefined();
    const rs4096 = { ...assertion, response: { ...assertion.response, signature: b64(new Uint8Array(512)) } };
    expect(parseAuthenticationCredential(rs4096)?.signature).toHaveLength(512);
    const longSignature = { ...assertion, response: { ...assertion.response, signature: 'A'.repeat(684) } };
    expect(parseAuthenticationCredential(longSignature)).toBeUndefined();
    const shortSignature = { ...assertion, response: { ...assertion.response, signature: 'A'.repeat(7) } };
    expect(parseAuthenticationCredential(shortSignature)).toBeUndefined();
    const longHandle = { ...assertion, response: { ...assertion.response, userHandle: b64(new Uint8Array(65)) } };
    expect(parseAuthenticationCredential(longHandle)).toBeUndefined();
  });
});
