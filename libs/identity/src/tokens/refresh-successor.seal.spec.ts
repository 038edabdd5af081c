import { describe, expect, it } from '@jest/globals';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { FrozenClock } from '../runtime/frozen.clock.js';
import type { RandomSource } from '../runtime/identity.runtime.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { lengthPrefixed } from './keyed-digest.crypto.js';
import {
  openSuccessor,
  SEALED_SUCCESSOR_VERSION,
  sealSuccessor,
  type SuccessorPair,
  type SuccessorSealContext,
} from './refresh-successor.seal.js';
import { generateSelectorToken } from './secret-token.format.js';

const clock = new FrozenClock('2026-07-14T08:15:30Z');
const random = createNodeCryptoRandom();
const parent = generateSelectorToken(clock, random);
const context: SuccessorSealContext = {
  familyId: generateSelectorToken(clock, random).selector,
  parentTokenId: parent.selector,
  clientId: 'tessera-cli',
};
const access = generateSelectorToken(clock, random);
const refresh = generateSelectorToken(clock, random);
const pair: SuccessorPair = { accessToken: access.token, refreshToken: refresh.token };

function bytesOf(sealed: string): Buffer {
  return decodeBase64Url(sealed, { maxBytes: 4096 })!;
}

function flip(sealed: string, index: number): string {
  const bytes = bytesOf(sealed);
  bytes[index] = bytes[index]! ^ 0x01;
  return encodeBase64Url(bytes);
}

/** Seals by the documented format with node:crypto directly, with the associated data chosen by the caller. */
function sealByHand(aad: Buffer, nonce: Buffer, plaintext = lengthPrefixed(pair.accessToken, pair.refreshToken)) {
  const info = lengthPrefixed(
    'tessera-refresh-successor-v1',
    context.familyId,
    context.parentTokenId,
    context.clientId,
  );
  const key = Buffer.from(crypto.hkdfSync('sha256', parent.secret, Buffer.alloc(0), info, 32));
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return encodeBase64Url(Buffer.concat([Buffer.from([1]), nonce, ciphertext, cipher.getAuthTag()]));
}

function documentedAad(version = 1): Buffer {
  return lengthPrefixed(
    'tessera-refresh-successor-v1',
    Buffer.from([version]),
    context.familyId,
    context.parentTokenId,
    context.clientId,
  );
}

describe('refresh successor sealing (issue 13, identity-model §5.5 retry window)', () => {
  it('opens to the identical pair with the parent secret and the same context', () => {
    const sealed = sealSuccessor(random, parent.secret, context, pair);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(openSuccessor(parent.secret, context, sealed)).toEqual({
      ...pair,
      accessTokenId: access.selector,
      refreshTokenId: refresh.selector,
    });
  });

  it('writes version 1, then a fresh 96-bit nonce from the runtime random source, then ciphertext and a 16-byte tag', () => {
    const nonce = Buffer.alloc(12, 7);
    const fixed: RandomSource = { bytes: (size) => (size === 12 ? nonce : random.bytes(size)) };
    const bytes = bytesOf(sealSuccessor(fixed, parent.secret, context, pair));
    expect(SEALED_SUCCESSOR_VERSION).toBe(1);
    expect(bytes[0]).toBe(1);
    expect(bytes.subarray(1, 13)).toEqual(nonce);
    expect(bytes.byteLength).toBe(1 + 12 + (4 + 80 + 4 + 80) + 16);
    expect(sealSuccessor(fixed, parent.secret, context, pair)).toBe(encodeBase64Url(bytes));
  });

  it('never repeats a nonce or a blob for the same pair', () => {
    const a = sealSuccessor(random, parent.secret, context, pair);
    const b = sealSuccessor(random, parent.secret, context, pair);
    expect(a).not.toBe(b);
    expect(bytesOf(a).subarray(1, 13)).not.toEqual(bytesOf(b).subarray(1, 13));
  });

  it('matches the documented construction (HKDF-SHA-256 key, AES-256-GCM, associated data)', () => {
    const nonce = crypto.randomBytes(12);
    expect(openSuccessor(parent.secret, context, sealByHand(documentedAad(), nonce))?.refreshToken).toBe(
      pair.refreshToken,
    );
  });

  it('keeps the pair unreadable without the parent secret: no token text in the blob', () => {
    const bytes = bytesOf(sealSuccessor(random, parent.secret, context, pair));
    expect(bytes.includes(Buffer.from(access.selector))).toBe(false);
    expect(bytes.includes(Buffer.from(pair.refreshToken.slice(37)))).toBe(false);
  });

  it('refuses another parent secret (a database reader, or a different refresh token)', () => {
    const sealed = sealSuccessor(random, parent.secret, context, pair);
    expect(openSuccessor(generateSelectorToken(clock, random).secret, context, sealed)).toBeUndefined();
    expect(openSuccessor(parent.secret.subarray(0, 31), context, sealed)).toBeUndefined();
  });

  it.each<[string, Partial<SuccessorSealContext>]>([
    ['another family', { familyId: generateSelectorToken(clock, random).selector }],
    ['another parent token', { parentTokenId: generateSelectorToken(clock, random).selector }],
    ['another client', { clientId: 'tessera-cli2' }],
  ])('refuses a blob moved to %s', (_name, patch) => {
    const sealed = sealSuccessor(random, parent.secret, context, pair);
    expect(openSuccessor(parent.secret, { ...context, ...patch }, sealed)).toBeUndefined();
  });

  it('refuses a blob whose associated data differs even under the right key', () => {
    const nonce = crypto.randomBytes(12);
    const otherAad = lengthPrefixed('tessera-refresh-successor-v1', Buffer.from([1]), context.familyId);
    expect(openSuccessor(parent.secret, context, sealByHand(otherAad, nonce))).toBeUndefined();
    expect(openSuccessor(parent.secret, context, sealByHand(documentedAad(2), nonce))).toBeUndefined();
  });

  it('fails closed on any changed byte: version, nonce, ciphertext or tag (property)', () => {
    const sealed = sealSuccessor(random, parent.secret, context, pair);
    const size = bytesOf(sealed).byteLength;
    expect(openSuccessor(parent.secret, context, flip(sealed, 0))).toBeUndefined(); // version
    expect(openSuccessor(parent.secret, context, flip(sealed, 5))).toBeUndefined(); // nonce
    expect(openSuccessor(parent.secret, context, flip(sealed, 40))).toBeUndefined(); // ciphertext
    expect(openSuccessor(parent.secret, context, flip(sealed, size - 1))).toBeUndefined(); // tag
    fc.assert(
      fc.property(fc.integer({ min: 0, max: size - 1 }), fc.integer({ min: 1, max: 255 }), (index, mask) => {
        const bytes = bytesOf(sealed);
        bytes[index] = bytes[index]! ^ mask;
        expect(openSuccessor(parent.secret, context, encodeBase64Url(bytes))).toBeUndefined();
      }),
    );
  });

  it('refuses another blob version, even with an otherwise valid body', () => {
    const bytes = bytesOf(sealSuccessor(random, parent.secret, context, pair));
    for (const version of [0, 2, 255]) {
      bytes[0] = version;
      expect(openSuccessor(parent.secret, context, encodeBase64Url(bytes))).toBeUndefined();
    }
  });

  it('refuses truncated, extended, empty, non-base64url and non-string blobs without throwing', () => {
    const sealed = sealSuccessor(random, parent.secret, context, pair);
    const bytes = bytesOf(sealed);
    expect(openSuccessor(parent.secret, context, encodeBase64Url(bytes.subarray(0, bytes.byteLength - 1)))).toBe(
      undefined,
    );
    expect(openSuccessor(parent.secret, context, encodeBase64Url(Buffer.concat([bytes, Buffer.from([0])])))).toBe(
      undefined,
    );
    expect(openSuccessor(parent.secret, context, '')).toBeUndefined();
    expect(openSuccessor(parent.secret, context, `${sealed}=`)).toBeUndefined();
    expect(openSuccessor(parent.secret, context, 'A'.repeat(5000))).toBeUndefined();
    expect(openSuccessor(parent.secret, context, null)).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (junk) => {
        expect(openSuccessor(parent.secret, context, encodeBase64Url(junk))).toBeUndefined();
      }),
    );
  });

  it('refuses an authentic blob whose plaintext is not exactly two device tokens', () => {
    const nonce = crypto.randomBytes(12);
    const bad = [
      lengthPrefixed(pair.accessToken),
      lengthPrefixed(pair.accessToken, pair.refreshToken, pair.refreshToken),
      lengthPrefixed(pair.accessToken, 'not-a-token'),
      Buffer.concat([lengthPrefixed(pair.accessToken, pair.refreshToken), Buffer.from([0, 0])]),
    ];
    for (const plaintext of bad) {
      expect(openSuccessor(parent.secret, context, sealByHand(documentedAad(), nonce, plaintext))).toBeUndefined();
    }
  });

  it('refuses to seal with a parent secret that is not 32 bytes or a pair that is not two tokens', () => {
    expect(() => sealSuccessor(random, new Uint8Array(16), context, pair)).toThrow(RangeError);
    expect(() => sealSuccessor(random, parent.secret, context, { ...pair, refreshToken: 'x' })).toThrow(RangeError);
    const short: RandomSource = { bytes: (size) => new Uint8Array(size - 1) };
    expect(() => sealSuccessor(short, parent.secret, context, pair)).toThrow(RangeError);
  });
});
