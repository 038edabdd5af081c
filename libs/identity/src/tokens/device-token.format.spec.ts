import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { FrozenClock } from '../runtime/frozen.clock.js';
import { createKeyRing } from '../runtime/key-ring.resolver.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import type { StoredDigest } from '../store/identity-records.js';
import { encodeBase64Url } from './base64url.codec.js';
import {
  deviceTokenMatches,
  digestDeviceToken,
  issueDeviceToken,
  parseDeviceToken,
  type DeviceTokenKind,
} from './device-token.format.js';

const runtime = { clock: new FrozenClock('2026-07-14T08:15:30Z'), random: createNodeCryptoRandom() };
const v1 = Buffer.from('tessera-test-device-pepper-v1-0001');
const v2 = Buffer.from('tessera-test-device-pepper-v2-0002');
const ringV1 = createKeyRing({ version: 'v1', reference: 'memory:device', key: v1 });
const ring = createKeyRing({ version: 'v2', reference: 'memory:device@v2', key: v2 }, [
  { version: 'v1', reference: 'memory:device', key: v1 },
]);
const KINDS: DeviceTokenKind[] = ['access', 'refresh'];

function hmac(key: Buffer, ...fields: (string | Uint8Array)[]): Buffer {
  const mac = crypto.createHmac('sha256', key);
  for (const field of fields) {
    const bytes = Buffer.from(field);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.byteLength);
    mac.update(length).update(bytes);
  }
  return mac.digest();
}

describe.each(KINDS)('device %s tokens (identity-model §2)', (kind) => {
  const domain = kind === 'access' ? 'tessera-device-access-token-v1' : 'tessera-device-refresh-token-v1';

  it('are <tokenId UUIDv7>.<b64url(32 B)> (80 chars), selector = token id, and parse back', () => {
    const issued = issueDeviceToken(kind, runtime, ring);
    expect(issued.token).toHaveLength(80);
    expect(issued.token.startsWith(`${issued.id}.`)).toBe(true);
    expect(issued.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const parsed = parseDeviceToken(issued.token)!;
    expect(parsed.selector).toBe(issued.id);
    expect(parsed.secret).toHaveLength(32);
  });

  it(`digest HMAC(device pepper, ${domain} ‖ selector ‖ secret) under the current key version`, () => {
    const issued = issueDeviceToken(kind, runtime, ring);
    const parsed = parseDeviceToken(issued.token)!;
    const expected = hmac(v2, domain, parsed.selector, parsed.secret);
    expect(digestDeviceToken(kind, v2, parsed.selector, parsed.secret)).toEqual(expected);
    expect(issued.tokenDigest).toEqual({
      algorithm: 'hmac-sha256',
      encoded: encodeBase64Url(expected),
      keyVersion: 'v2',
    });
  });

  it('verify a presented token against its stored digest', () => {
    const issued = issueDeviceToken(kind, runtime, ring);
    expect(deviceTokenMatches(kind, ring, parseDeviceToken(issued.token)!, issued.tokenDigest)).toBe(true);
  });

  it('verify a token issued under a previous key version with the stored version', () => {
    const old = issueDeviceToken(kind, runtime, ringV1);
    expect(old.tokenDigest.keyVersion).toBe('v1');
    expect(deviceTokenMatches(kind, ring, parseDeviceToken(old.token)!, old.tokenDigest)).toBe(true);
  });

  it('refuse a wrong secret, another selector, an unknown or null key version and a malformed stored digest', () => {
    const issued = issueDeviceToken(kind, runtime, ring);
    const parsed = parseDeviceToken(issued.token)!;
    const other = parseDeviceToken(issueDeviceToken(kind, runtime, ring).token)!;
    const flipped = Buffer.from(parsed.secret);
    flipped[0] = flipped[0]! ^ 1;
    expect(deviceTokenMatches(kind, ring, { ...parsed, secret: flipped }, issued.tokenDigest)).toBe(false);
    expect(deviceTokenMatches(kind, ring, { ...parsed, selector: other.selector }, issued.tokenDigest)).toBe(false);
    const stored = (patch: Partial<StoredDigest>): StoredDigest => ({ ...issued.tokenDigest, ...patch });
    expect(deviceTokenMatches(kind, ring, parsed, stored({ keyVersion: 'v3' }))).toBe(false);
    expect(deviceTokenMatches(kind, ring, parsed, stored({ keyVersion: 'v1' }))).toBe(false);
    expect(deviceTokenMatches(kind, ring, parsed, stored({ keyVersion: null }))).toBe(false);
    expect(deviceTokenMatches(kind, ring, parsed, stored({ algorithm: 'sha256' }))).toBe(false);
    expect(deviceTokenMatches(kind, ring, parsed, stored({ encoded: issued.tokenDigest.encoded.slice(1) }))).toBe(
      false,
    );
    expect(deviceTokenMatches(kind, ringV1, parsed, issued.tokenDigest)).toBe(false);
  });
});

describe('device token kinds', () => {
  it('never let an access token verify as a refresh token or the other way round (domain separation)', () => {
    const access = issueDeviceToken('access', runtime, ring);
    const refresh = issueDeviceToken('refresh', runtime, ring);
    expect(deviceTokenMatches('refresh', ring, parseDeviceToken(access.token)!, access.tokenDigest)).toBe(false);
    expect(deviceTokenMatches('access', ring, parseDeviceToken(refresh.token)!, refresh.tokenDigest)).toBe(false);
  });

  it('reject forged tokens: non-canonical selector, short or long secret, extra dots', () => {
    const { token, id } = issueDeviceToken('refresh', runtime, ring);
    const secret = token.slice(37);
    expect(parseDeviceToken(`${id.toUpperCase()}.${secret}`)).toBeUndefined();
    expect(parseDeviceToken(`${id}.${secret.slice(0, 42)}`)).toBeUndefined();
    expect(parseDeviceToken(`${id}.${encodeBase64Url(new Uint8Array(33))}`)).toBeUndefined();
    expect(parseDeviceToken(`${id}.${secret}.x`)).toBeUndefined();
    expect(parseDeviceToken(`Bearer ${token}`)).toBeUndefined();
    expect(parseDeviceToken(undefined)).toBeUndefined();
  });

  it('never parse arbitrary strings into a token (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (value) => {
        const parsed = parseDeviceToken(value);
        if (parsed !== undefined) expect(`${parsed.selector}.${encodeBase64Url(parsed.secret)}`).toBe(value);
      }),
    );
  });
});
