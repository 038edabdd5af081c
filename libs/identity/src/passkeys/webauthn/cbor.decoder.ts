/**
 * A strict decoder for the CTAP2 canonical CBOR subset WebAuthn uses (identity-model §4, §5.3):
 * definite lengths only, minimal integer/length encodings, map keys in canonical order
 * (shorter encoding first, then bytewise) without duplicates, no tags, no floats, no
 * `undefined`/`null`, depth ≤ 8, ≤ 256 items. Anything else is rejected.
 */

/** A decoded CBOR value. Maps keep integer and text keys apart (`Map<number | string, …>`). */
export type CborValue = number | string | boolean | Uint8Array | CborValue[] | CborMap;
/** A decoded CBOR map. */
export type CborMap = Map<number | string, CborValue>;

/** Limits of identity-model §4. */
export const CBOR_MAX_DEPTH = 8;
export const CBOR_MAX_ITEMS = 256;

/** Thrown for any non-canonical, oversized or unsupported encoding. */
export class CborError extends Error {
  constructor(reason: string) {
    super(`CBOR rejected: ${reason}`);
    this.name = 'CborError';
  }
}

interface Cursor {
  readonly bytes: Uint8Array;
  offset: number;
  items: number;
}

/**
 * Decodes one canonical CBOR item that must span `bytes` exactly (`allowTrailing` returns the
 * end offset instead, for the COSE key inside authenticator data).
 *
 * @example
 * const attestation = decodeCanonicalCbor(attestationObject).value;
 */
export function decodeCanonicalCbor(bytes: Uint8Array, allowTrailing = false): { value: CborValue; end: number } {
  const cursor: Cursor = { bytes, offset: 0, items: 0 };
  const value = readItem(cursor, 1);
  if (!allowTrailing && cursor.offset !== bytes.length) throw new CborError('trailing bytes');
  return { value, end: cursor.offset };
}

function take(cursor: Cursor, count: number): Uint8Array {
  if (count > cursor.bytes.length - cursor.offset) throw new CborError('truncated');
  const slice = cursor.bytes.subarray(cursor.offset, cursor.offset + count);
  cursor.offset += count;
  return slice;
}

/** Reads the argument of a head, enforcing the shortest encoding. */
function readArgument(cursor: Cursor, info: number): number {
  if (info < 24) return info;
  if (info === 24) {
    const value = take(cursor, 1)[0]!;
    if (value < 24) throw new CborError('non-minimal integer');
    return value;
  }
  if (info === 25) {
    const b = take(cursor, 2);
    const value = (b[0]! << 8) | b[1]!;
    if (value < 0x100) throw new CborError('non-minimal integer');
    return value;
  }
  if (info === 26) {
    const b = take(cursor, 4);
    const value = ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
    if (value < 0x10000) throw new CborError('non-minimal integer');
    return value;
  }
  if (info === 27) {
    const b = take(cursor, 8);
    const high = ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
    const low = ((b[4]! << 24) >>> 0) + (b[5]! << 16) + (b[6]! << 8) + b[7]!;
    if (high === 0) throw new CborError('non-minimal integer');
    const value = high * 0x1_0000_0000 + low;
    if (!Number.isSafeInteger(value)) throw new CborError('integer out of range');
    return value;
  }
  throw new CborError('indefinite or reserved length');
}

function readItem(cursor: Cursor, depth: number): CborValue {
  if (depth > CBOR_MAX_DEPTH) throw new CborError('too deep');
  if (++cursor.items > CBOR_MAX_ITEMS) throw new CborError('too many items');
  const head = take(cursor, 1)[0]!;
  const major = head >> 5;
  const info = head & 0x1f;
  switch (major) {
    case 0:
      return readArgument(cursor, info);
    case 1:
      return -1 - readArgument(cursor, info);
    case 2:
      return Uint8Array.from(take(cursor, readArgument(cursor, info)));
    case 3:
      return decodeText(take(cursor, readArgument(cursor, info)));
    case 4: {
      const length = readArgument(cursor, info);
      if (length > CBOR_MAX_ITEMS) throw new CborError('too many items');
      const items: CborValue[] = [];
      for (let i = 0; i < length; i++) items.push(readItem(cursor, depth + 1));
      return items;
    }
    case 5:
      return readMap(cursor, readArgument(cursor, info), depth);
    case 7:
      if (info === 20) return false;
      if (info === 21) return true;
      throw new CborError('unsupported simple value or float');
    default:
      throw new CborError('tags are not allowed');
  }
}

function readMap(cursor: Cursor, length: number, depth: number): CborMap {
  if (length > CBOR_MAX_ITEMS) throw new CborError('too many items');
  const map: CborMap = new Map();
  let previous: Uint8Array | undefined;
  for (let i = 0; i < length; i++) {
    const keyStart = cursor.offset;
    const key = readItem(cursor, depth + 1);
    if (typeof key !== 'number' && typeof key !== 'string') throw new CborError('map keys must be integers or text');
    const encoded = cursor.bytes.subarray(keyStart, cursor.offset);
    if (previous !== undefined && compareCanonical(previous, encoded) >= 0)
      throw new CborError('map keys out of canonical order or duplicated');
    previous = encoded;
    map.set(key, readItem(cursor, depth + 1));
  }
  return map;
}

/** CTAP2 canonical order: lower major type first, then the shorter encoding, then bytewise. */
function compareCanonical(a: Uint8Array, b: Uint8Array): number {
  const major = (a[0]! >> 5) - (b[0]! >> 5);
  if (major !== 0) return major;
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CborError('invalid UTF-8 text');
  }
}

/** `true` for a decoded CBOR map. */
export function isCborMap(value: CborValue | undefined): value is CborMap {
  return value instanceof Map;
}
