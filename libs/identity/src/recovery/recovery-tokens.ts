import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';
import type { KeyRing } from '../runtime/key-ring.resolver.js';
import type { NewRecoveryCode } from '../store/identity-credential.port.js';
import type { StoredDigest } from '../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from '../tokens/base64url.codec.js';
import { DIGEST_DOMAINS } from '../tokens/digest-domains.constants.js';
import { keyedDigest, storedKeyedDigest, timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { isUuidV7 } from '../http/request-fields.js';

/** Codes per generation (identity-model §2). */
export const RECOVERY_CODES_PER_GENERATION = 10;

const CODE = /^([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{22})$/;

/** A parsed recovery code: public selector and 16 secret bytes. */
export interface RecoveryCodeParts {
  readonly selector: string;
  readonly secret: Buffer;
}

/** HMAC(recovery pepper, `tessera-recovery-code-v1` ‖ selector ‖ secret). */
export function digestRecoveryCode(pepper: Uint8Array, parts: RecoveryCodeParts): Buffer {
  return keyedDigest(pepper, DIGEST_DOMAINS.recoveryCode, parts.selector, parts.secret);
}

/**
 * A fresh generation: ten independent codes `<selector 11>.<secret 22>` (128-bit secrets) and
 * their rows (keyed digests under the current recovery pepper). The codes are shown once.
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
    const selector = encodeBase64Url(runtime.random.bytes(8));
    const secret = Buffer.from(runtime.random.bytes(16));
    codes.push(`${selector}.${encodeBase64Url(secret)}`);
    rows.push({
      id: generateUuidV7(runtime.clock, runtime.random),
      publicSelector: selector,
      secretDigest: storedKeyedDigest(digestRecoveryCode(ring.current.key, { selector, secret }), ring.current.version),
    });
  }
  return { codes, rows };
}

/** The parts of a presented recovery code, or `undefined` when it is not one. */
export function parseRecoveryCode(value: string): RecoveryCodeParts | undefined {
  const match = CODE.exec(value);
  if (match === null) return undefined;
  const secret = decodeBase64Url(match[2], { minBytes: 16, maxBytes: 16 });
  if (secret === undefined || decodeBase64Url(match[1], { minBytes: 8, maxBytes: 8 }) === undefined) return undefined;
  return { selector: match[1]!, secret };
}

/** Constant-time check of a presented code against its stored digest and key version. */
export function recoveryCodeMatches(ring: KeyRing, parts: RecoveryCodeParts, stored: StoredDigest): boolean {
  const pepper = stored.keyVersion === null ? undefined : ring.byVersion(stored.keyVersion);
  const expected = decodeBase64Url(stored.encoded, { minBytes: 32, maxBytes: 32 });
  if (pepper === undefined || expected === undefined) return false;
  return timingSafeEqual(digestRecoveryCode(pepper.key, parts), expected);
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
