import crypto from 'node:crypto';
import type { RandomSource } from '../runtime/identity.runtime.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { lengthPrefixed } from './keyed-digest.crypto.js';
import { parseSelectorToken, TOKEN_SECRET_BYTES } from './secret-token.format.js';

/**
 * The format version written as the first byte of every sealed successor blob; {@link openSuccessor}
 * refuses any other.
 *
 * @example
 * decodeBase64Url(sealed, { maxBytes: 1024 })![0] === SEALED_SUCCESSOR_VERSION; // true
 */
export const SEALED_SUCCESSOR_VERSION = 1;

/** HKDF info and associated-data domain of version 1. */
const DOMAIN = 'tessera-refresh-successor-v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Larger than any sealed pair of two ≤ 512-char tokens; bounds the decode before allocating. */
const MAX_SEALED_BYTES = 1 + NONCE_BYTES + 8 + 2 * 512 + TAG_BYTES;

/**
 * What a sealed successor is bound to: the family, the rotated parent refresh token and the
 * client. The same values are needed to open it, so a blob copied to another token, family or
 * client never opens.
 *
 * @example
 * const context: SuccessorSealContext = { familyId: family.id, parentTokenId: parent.id, clientId: form.client_id };
 */
export interface SuccessorSealContext {
  readonly familyId: string;
  readonly parentTokenId: string;
  readonly clientId: string;
}

/**
 * The token pair a refresh handed out, returned again, identical, to a retry inside
 * `lifetimes.refreshRetrySeconds` (`identity-model.md` §5.5).
 *
 * @example
 * const pair: SuccessorPair = { accessToken: access.token, refreshToken: refresh.token };
 */
export interface SuccessorPair {
  /** `<tokenId>.<b64url(32 B)>` of the successor access token. */
  readonly accessToken: string;
  /** `<tokenId>.<b64url(32 B)>` of the successor refresh token. */
  readonly refreshToken: string;
}

/**
 * An opened successor pair with the token ids (selectors), so the caller can check them against
 * the parent's `rotatedToId` and the family's access-token rows.
 *
 * @example
 * if (opened.refreshTokenId !== parent.rotatedToId) return replay();
 */
export interface OpenedSuccessor extends SuccessorPair {
  readonly accessTokenId: string;
  readonly refreshTokenId: string;
}

/**
 * Seals a successor pair under a key only the holder of the parent refresh token can derive:
 * AES-256-GCM with key = HKDF-SHA-256(ikm = the parent's 32 secret bytes, no salt, info =
 * `tessera-refresh-successor-v1` ‖ familyId ‖ parentTokenId ‖ clientId), a fresh 96-bit nonce from
 * `random`, and associated data = `tessera-refresh-successor-v1` ‖ version byte ‖ familyId ‖
 * parentTokenId ‖ clientId (all length-prefixed). The server never stores the parent's secret, so
 * a database reader cannot open the blob.
 *
 * Blob: base64url(`0x01` ‖ nonce (12 B) ‖ ciphertext ‖ GCM tag (16 B)); the plaintext is the
 * length-prefixed access token ‖ refresh token.
 *
 * @example
 * const sealed = sealSuccessor(runtime.random, presented.secret, { familyId, parentTokenId: presented.selector, clientId }, {
 *   accessToken: access.token,
 *   refreshToken: refresh.token,
 * });
 */
export function sealSuccessor(
  random: RandomSource,
  parentSecret: Uint8Array,
  context: SuccessorSealContext,
  pair: SuccessorPair,
): string {
  if (parentSecret.byteLength !== TOKEN_SECRET_BYTES) throw new RangeError('the parent secret must be 32 bytes');
  if (parseSelectorToken(pair.accessToken) === undefined || parseSelectorToken(pair.refreshToken) === undefined) {
    throw new RangeError('a successor pair holds two device tokens');
  }
  const nonce = random.bytes(NONCE_BYTES);
  if (nonce.byteLength !== NONCE_BYTES) throw new RangeError('random source returned the wrong number of bytes');
  const header = Buffer.from([SEALED_SUCCESSOR_VERSION]);
  const cipher = crypto.createCipheriv('aes-256-gcm', successorKey(parentSecret, context), nonce, {
    authTagLength: TAG_BYTES,
  });
  cipher.setAAD(associatedData(header, context));
  const ciphertext = Buffer.concat([
    cipher.update(lengthPrefixed(pair.accessToken, pair.refreshToken)),
    cipher.final(),
  ]);
  return encodeBase64Url(Buffer.concat([header, nonce, ciphertext, cipher.getAuthTag()]));
}

/**
 * Opens a blob made by {@link sealSuccessor} with the presented parent secret and the same
 * context. Fails closed: `undefined` for another version, a wrong secret or context, any changed
 * byte (version, nonce, ciphertext, tag), a truncated or malformed blob, or a plaintext that is
 * not two device tokens. Never throws for a bad blob.
 *
 * @example
 * const opened = openSuccessor(presented.secret, { familyId, parentTokenId: presented.selector, clientId }, row.sealedSuccessor);
 * if (opened === undefined) return replay();
 */
export function openSuccessor(
  parentSecret: Uint8Array,
  context: SuccessorSealContext,
  sealed: unknown,
): OpenedSuccessor | undefined {
  if (parentSecret.byteLength !== TOKEN_SECRET_BYTES) return undefined;
  const bytes = decodeBase64Url(sealed, { minBytes: 1 + NONCE_BYTES + 8 + TAG_BYTES, maxBytes: MAX_SEALED_BYTES });
  if (bytes === undefined || bytes[0] !== SEALED_SUCCESSOR_VERSION) return undefined;
  const header = bytes.subarray(0, 1);
  const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
  const ciphertext = bytes.subarray(1 + NONCE_BYTES, bytes.byteLength - TAG_BYTES);
  const tag = bytes.subarray(bytes.byteLength - TAG_BYTES);
  let plaintext: Buffer;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', successorKey(parentSecret, context), nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(associatedData(header, context));
    decipher.setAuthTag(tag);
    plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    return undefined;
  }
  const fields = splitLengthPrefixed(plaintext);
  if (fields === undefined || fields.length !== 2) return undefined;
  const [accessToken, refreshToken] = fields as [string, string];
  const access = parseSelectorToken(accessToken);
  const refresh = parseSelectorToken(refreshToken);
  if (access === undefined || refresh === undefined) return undefined;
  return { accessToken, refreshToken, accessTokenId: access.selector, refreshTokenId: refresh.selector };
}

function successorKey(parentSecret: Uint8Array, context: SuccessorSealContext): Buffer {
  const info = lengthPrefixed(DOMAIN, context.familyId, context.parentTokenId, context.clientId);
  return Buffer.from(crypto.hkdfSync('sha256', parentSecret, Buffer.alloc(0), info, KEY_BYTES));
}

function associatedData(header: Uint8Array, context: SuccessorSealContext): Buffer {
  return lengthPrefixed(DOMAIN, header, context.familyId, context.parentTokenId, context.clientId);
}

/** The fields of a length-prefixed byte string as ASCII text; `undefined` when it does not parse exactly. */
function splitLengthPrefixed(bytes: Buffer): string[] | undefined {
  const fields: string[] = [];
  let offset = 0;
  while (offset < bytes.byteLength) {
    if (bytes.byteLength - offset < 4) return undefined;
    const length = bytes.readUInt32BE(offset);
    offset += 4;
    if (length > bytes.byteLength - offset) return undefined;
    fields.push(bytes.toString('latin1', offset, offset + length));
    offset += length;
  }
  return fields;
}
