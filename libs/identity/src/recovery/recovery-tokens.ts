import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { NewRecoveryCode } from '../store/identity-credential.port.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url } from '../tokens/base64url.codec.js';
import { decodeCrockford, encodeCrockford } from '../tokens/crockford-base32.codec.js';
import { DIGEST_DOMAINS } from '../tokens/digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest, timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { isUuidV7 } from '../http/request-fields.js';

/** Codes per generation (identity-model §2). */
export const RECOVERY_CODES_PER_GENERATION = 10;

/** Characters per group of a shown code: `XXXXX-XXXXX-XXXXX-XXXXX-XXXXXX` (26 in all). */
const GROUPS = [5, 5, 5, 5, 6] as const;

/** Ignored wherever they appear in a presented code: hyphens and white space. */
const SEPARATORS = /[-\s]/g;

/** A code issued before the readable format: `<selector 11>.<secret 22>` (base64url). */
const LEGACY_CODE = /^([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{22})$/;

/**
 * A presented recovery code: its 16 secret bytes, and for a code of the earlier format its public
 * selector (such a code is found by the selector and checked against the `v1` digest).
 */
export interface RecoveryCodeParts {
  readonly secret: Buffer;
  readonly legacySelector?: string;
}

/** HMAC(recovery pepper, `tessera-recovery-code-v2` ‖ secret): what a code is stored and found by. */
export function digestRecoveryCode(pepper: Uint8Array, secret: Uint8Array): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.recoveryCode, secret);
}

/** HMAC(recovery pepper, `tessera-recovery-code-v1` ‖ selector ‖ secret) of a code of the earlier format. */
export function digestLegacyRecoveryCode(pepper: Uint8Array, selector: string, secret: Uint8Array): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.legacyRecoveryCode, selector, secret);
}

/**
 * The shown form of a 16-byte secret: 26 Crockford base32 characters in groups of 5, 5, 5, 5, 6.
 *
 * @example
 * formatRecoveryCode(randomBytes(16)); // 'A3K9R-0V7M2-T8W5Q-1Z6X4-C0B9E8'
 */
export function formatRecoveryCode(secret: Uint8Array): string {
  const text = encodeCrockford(secret);
  const groups: string[] = [];
  let at = 0;
  for (const size of GROUPS) {
    groups.push(text.slice(at, at + size));
    at += size;
  }
  return groups.join('-');
}

/**
 * The keyed digest of a code under every version of the recovery pepper, current first: the
 * store looks the code up by these (one indexed read), so a code made under a previous version
 * still works until it is replaced.
 */
export function recoveryCodeDigests(ring: KeyRing, secret: Uint8Array): StoredDigest[] {
  return ring.entries.map((entry) => storedKeyedDigest(digestRecoveryCode(entry.key, secret), entry.version));
}

/**
 * A fresh generation: ten independent 128-bit codes, shown as
 * `XXXXX-XXXXX-XXXXX-XXXXX-XXXXXX`, and their rows (keyed digests under the current recovery
 * pepper, no selector). The codes are shown once.
 *
 * @example
 * const { codes, rows } = generateRecoveryCodes(runtime, keys.recoveryPepper);
 */
export function generateRecoveryCodes(
  runtime: { clock: IdentityClock; random: RandomSource },
  ring: KeyRing,
): { codes: string[]; rows: NewRecoveryCode[] } {
  const codes: string[] = [];
  const rows: NewRecoveryCode[] = [];
  for (let i = 0; i < RECOVERY_CODES_PER_GENERATION; i++) {
    const secret = Buffer.from(runtime.random.bytes(16));
    codes.push(formatRecoveryCode(secret));
    rows.push({
      id: generateUuidV7(runtime.clock, runtime.random),
      secretDigest: storedKeyedDigest(digestRecoveryCode(ring.current.key, secret), ring.current.version),
    });
  }
  return { codes, rows };
}

/**
 * The secret of a presented code, or `undefined` when it is not one. Case does not matter,
 * hyphens and white space are ignored, O reads as 0 and I or L as 1. A code of the earlier
 * `<selector>.<secret>` format (base64url, case-sensitive) is still accepted.
 */
export function parseRecoveryCode(value: string): RecoveryCodeParts | undefined {
  const legacy = LEGACY_CODE.exec(value);
  if (legacy !== null) {
    const secret = decodeBase64Url(legacy[2], { minBytes: 16, maxBytes: 16 });
    if (secret === undefined || decodeBase64Url(legacy[1], { minBytes: 8, maxBytes: 8 }) === undefined)
      return undefined;
    return { secret, legacySelector: legacy[1]! };
  }
  const secret = decodeCrockford(value.replace(SEPARATORS, ''), 16);
  return secret === undefined ? undefined : { secret };
}

/** Constant-time check of a code of the earlier format against its stored digest and key version. */
export function legacyRecoveryCodeMatches(
  ring: KeyRing,
  selector: string,
  secret: Uint8Array,
  stored: StoredDigest,
): boolean {
  const pepper = stored.keyVersion === null ? undefined : ring.byVersion(stored.keyVersion);
  const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || expected === undefined) return false;
  return timingSafeEqual(digestLegacyRecoveryCode(pepper.key, selector, secret), expected);
}

/** An administrative recovery ticket `<ticketId>.<b64url(32 B)>` (identity-model §2). */
export interface RecoveryTicketParts {
  readonly ticketId: string;
  readonly secret: Buffer;
}

/** HMAC(recovery pepper, `tessera-recovery-ticket-v1` ‖ id ‖ secret). */
export function digestRecoveryTicket(pepper: Uint8Array, parts: RecoveryTicketParts): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.recoveryTicket, parts.ticketId, parts.secret);
}

/** HMAC(recovery pepper, `tessera-recovery-ticket-user-v1` ‖ id ‖ userId): binds a ticket to its user. */
export function digestRecoveryTicketUser(pepper: Uint8Array, ticketId: string, userId: string): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.recoveryTicketUser, ticketId, userId);
}

/** The parts of a presented ticket token, or `undefined` when malformed. */
export function parseRecoveryTicket(value: string): RecoveryTicketParts | undefined {
  const dot = value.indexOf('.');
  if (dot === -1 || value.indexOf('.', dot + 1) !== -1) return undefined;
  const ticketId = value.slice(0, dot);
  const secret = decodeBase64Url(value.slice(dot + 1), { minBytes: 32, maxBytes: 32 });
  if (!isUuidV7(ticketId) || secret === undefined) return undefined;
  return { ticketId, secret };
}
