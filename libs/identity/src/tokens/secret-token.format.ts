import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.codec.js';
import { DIGEST_DOMAINS } from './digest-domains.constants.js';
import { keyedDigest, timingSafeEqual } from './keyed-digest.crypto.js';
import { generateUuidV7, isCanonicalUuidV7 } from './uuid-v7.generator.js';

/**
 * Bytes of every 256-bit token secret (session, CSRF, invitation, device code, ...).
 *
 * @example
 * const secret = runtime.random.bytes(TOKEN_SECRET_BYTES);
 */
export const TOKEN_SECRET_BYTES = 32;
/**
 * Characters of base64url(32 bytes).
 *
 * @example
 * if (token.length !== TOKEN_SECRET_LENGTH) return undefined;
 */
export const TOKEN_SECRET_LENGTH = 43;

const OPAQUE_TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * A `<selector UUIDv7>.<b64url(32 B)>` token: session token, device access/refresh token,
 * service credential (`identity-model.md` §2).
 *
 * @example
 * const { selector, secret, token } = generateSessionToken(runtime.clock, runtime.random);
 */
export interface SelectorToken {
  /** The UUIDv7 before the dot (session id, token id, credential id). */
  readonly selector: string;
  /** The 32 secret bytes after the dot. */
  readonly secret: Buffer;
  /** The full 80-character token. */
  readonly token: string;
}

/**
 * The outer shape every bearer / session token must have before any stricter check:
 * 20..512 chars, exactly one `.`, both sides `[A-Za-z0-9_-]+` (`identity-http.md` §2.1).
 *
 * @example
 * if (!hasOpaqueTokenShape(bearer)) throw new IdentityError('invalid_credentials');
 */
export function hasOpaqueTokenShape(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 20 && value.length <= 512 && OPAQUE_TOKEN_SHAPE.test(value);
}

/**
 * A new selector token with a fresh UUIDv7 selector and 32 random secret bytes.
 *
 * @example
 * const credential = generateSelectorToken(runtime.clock, runtime.random);
 */
export function generateSelectorToken(clock: IdentityClock, random: RandomSource): SelectorToken {
  const selector = generateUuidV7(clock, random);
  const secret = randomSecret(random, TOKEN_SECRET_BYTES);
  return { selector, secret, token: `${selector}.${encodeBase64Url(secret)}` };
}

/**
 * Parses a selector token: the outer shape first, then a canonical UUIDv7 selector and a secret
 * decoding to exactly 32 bytes. `undefined` for anything else.
 *
 * @example
 * const parsed = parseSelectorToken(cookieValue);
 * if (parsed === undefined) throw new IdentityError('invalid_credentials');
 */
export function parseSelectorToken(value: unknown): SelectorToken | undefined {
  if (!hasOpaqueTokenShape(value)) return undefined;
  const dot = value.indexOf('.');
  const selector = value.slice(0, dot);
  if (!isCanonicalUuidV7(selector)) return undefined;
  const secret = decodeBase64Url(value.slice(dot + 1), { minBytes: TOKEN_SECRET_BYTES, maxBytes: TOKEN_SECRET_BYTES });
  return secret === undefined ? undefined : { selector, secret, token: value };
}

/**
 * A new session token `<sessionId>.<b64url(32 B)>` (80 chars); `selector` is the session id.
 *
 * @example
 * const { selector: sessionId, secret, token } = generateSessionToken(runtime.clock, runtime.random);
 */
export const generateSessionToken: (clock: IdentityClock, random: RandomSource) => SelectorToken =
  generateSelectorToken;

/**
 * Parses a session cookie value (see {@link parseSelectorToken}).
 *
 * @example
 * const session = parseSessionToken(cookie);
 */
export const parseSessionToken: (value: unknown) => SelectorToken | undefined = parseSelectorToken;

/**
 * The stored digest of a session secret: HMAC(session pepper, `tessera-session-v1` ‖ secret).
 *
 * @example
 * const digest = digestSessionSecret(ring.current.key, parsed.secret);
 */
export function digestSessionSecret(sessionPepper: Uint8Array, secret: Uint8Array): Buffer {
  return keyedDigest(sessionPepper, DIGEST_DOMAINS.session, secret);
}

/**
 * A 32-byte random token and its 43-character base64url text (CSRF token, invitation token).
 *
 * @example
 * const { token, bytes } = generateCsrfToken(runtime.random);
 */
export interface RandomToken {
  readonly token: string;
  readonly bytes: Buffer;
}

/**
 * A new CSRF token: base64url of 32 random bytes (43 chars).
 *
 * @example
 * const csrf = generateCsrfToken(runtime.random);
 * const stored = digestCsrfToken(pepper, csrf.bytes);
 */
export function generateCsrfToken(random: RandomSource): RandomToken {
  const bytes = randomSecret(random, TOKEN_SECRET_BYTES);
  return { token: encodeBase64Url(bytes), bytes };
}

/**
 * The stored digest of a CSRF token: HMAC(session pepper, `tessera-csrf-v1` ‖ bytes).
 *
 * @example
 * const csrfDigest = digestCsrfToken(pepper, csrf.bytes);
 */
export function digestCsrfToken(sessionPepper: Uint8Array, bytes: Uint8Array): Buffer {
  return keyedDigest(sessionPepper, DIGEST_DOMAINS.csrf, bytes);
}

/**
 * Verifies a presented `X-CSRF-Token`: it must decode to exactly 32 bytes and its digest under
 * the session pepper of the stored key version must equal the stored digest (constant time).
 *
 * @example
 * if (!verifyCsrfToken(header, ring.byVersion(session.keyVersion)!.key, session.csrfDigest)) deny();
 */
export function verifyCsrfToken(presented: unknown, sessionPepper: Uint8Array, storedDigest: Uint8Array): boolean {
  const bytes = decodeBase64Url(presented, { minBytes: TOKEN_SECRET_BYTES, maxBytes: TOKEN_SECRET_BYTES });
  if (bytes === undefined) return false;
  return timingSafeEqual(digestCsrfToken(sessionPepper, bytes), storedDigest);
}

/**
 * A new invitation token: base64url of 32 random bytes (43 chars), shown once.
 *
 * @example
 * const invitation = generateInvitationToken(runtime.random);
 */
export function generateInvitationToken(random: RandomSource): RandomToken {
  return generateCsrfToken(random);
}

/**
 * The 32 secret bytes of a presented invitation token, or `undefined` when malformed.
 *
 * @example
 * const secret = parseInvitationToken(body.token);
 */
export function parseInvitationToken(value: unknown): Buffer | undefined {
  return decodeBase64Url(value, { minBytes: TOKEN_SECRET_BYTES, maxBytes: TOKEN_SECRET_BYTES });
}

/**
 * The stored digest of an invitation: HMAC(recovery pepper, `tessera-invitation-v1` ‖ secret).
 *
 * @example
 * const digest = digestInvitationToken(recoveryRing.current.key, secret);
 */
export function digestInvitationToken(recoveryPepper: Uint8Array, secret: Uint8Array): Buffer {
  return keyedDigest(recoveryPepper, DIGEST_DOMAINS.invitation, secret);
}

function randomSecret(random: RandomSource, size: number): Buffer {
  const bytes = random.bytes(size);
  if (bytes.byteLength !== size) throw new RangeError('random source returned the wrong number of bytes');
  return Buffer.from(bytes);
}
