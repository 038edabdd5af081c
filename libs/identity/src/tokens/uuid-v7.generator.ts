import type { IdentityClock, RandomSource } from '../runtime/identity.runtime.js';

/**
 * The canonical lowercase UUIDv7 pattern of `identity-http.md` §1 (version 7, RFC 4122 variant).
 *
 * @example
 * UUID_V7_PATTERN.test('01890a5d-ac96-774b-bcce-b302099a8057'); // true
 */
export const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const MAX_UNIX_MS = 2 ** 48 - 1;

/**
 * `true` for a lowercase canonical UUIDv7 (the only accepted entity-id form).
 *
 * @example
 * if (!isCanonicalUuidV7(exchange.pathParam('sessionId'))) throw new IdentityError('request_invalid');
 */
export function isCanonicalUuidV7(value: unknown): value is string {
  return typeof value === 'string' && UUID_V7_PATTERN.test(value);
}

/**
 * A new UUIDv7: 48-bit Unix milliseconds from `clock`, version 7, 74 random bits from `random`,
 * variant `10xx`, lowercase canonical text.
 *
 * @example
 * const id = generateUuidV7(runtime.clock, runtime.random);
 */
export function generateUuidV7(clock: IdentityClock, random: RandomSource): string {
  const ms = clock.now().getTime();
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_UNIX_MS) {
    throw new RangeError('UUIDv7 needs a clock between 1970 and the year 10889');
  }
  const entropy = random.bytes(10);
  if (entropy.byteLength !== 10) throw new RangeError('random source returned the wrong number of bytes');
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (entropy[0]! & 0x0f);
  bytes[7] = entropy[1]!;
  bytes[8] = 0x80 | (entropy[2]! & 0x3f);
  for (let i = 3; i < 10; i++) bytes[i + 6] = entropy[i]!;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The Unix-millisecond timestamp embedded in a canonical UUIDv7 (`undefined` for other input).
 *
 * @example
 * uuidV7Timestamp(id); // 1720945530000
 */
export function uuidV7Timestamp(value: string): number | undefined {
  if (!isCanonicalUuidV7(value)) return undefined;
  return Number.parseInt(value.slice(0, 8) + value.slice(9, 13), 16);
}
