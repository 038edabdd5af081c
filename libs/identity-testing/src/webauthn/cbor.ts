import { Buffer } from 'node:buffer';

/**
 * Bytes that {@link encodeCbor} emits verbatim, in place of one data item: the escape hatch for
 * crafting oversized, non-canonical, truncated or otherwise malformed CBOR inside a valid frame.
 *
 * @example
 * encodeCbor({ fmt: 'none', attStmt: new CborRaw(cborHead(5, 0, 1)), authData }); // non-minimal `{}`
 */
export class CborRaw {
  /** @param bytes the exact encoding to emit. */
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * A value {@link encodeCbor} can encode: safe integers and bigints (major types 0 and 1), byte
 * strings, text strings, arrays, maps (a `Map` for any keys, a plain object for text keys),
 * booleans, `null` and {@link CborRaw}. Floats are not supported.
 *
 * @example
 * const coseKey: CborValue = new Map<CborValue, CborValue>([[1, 2], [3, -7], [-1, 1], [-2, x], [-3, y]]);
 */
export type CborValue =
  | number
  | bigint
  | string
  | boolean
  | null
  | Uint8Array
  | CborRaw
  | readonly CborValue[]
  | ReadonlyMap<CborValue, CborValue>
  | { readonly [key: string]: CborValue };

/** Options of {@link encodeCbor}. */
export interface CborEncodeOptions {
  /**
   * Sort map keys in CTAP2 canonical order (major type, then encoded length, then bytewise) and
   * refuse duplicate keys. `false` keeps insertion order and duplicates, for non-canonical vectors.
   * @default true
   */
  readonly canonical?: boolean;
}

/** Width of a CBOR head's argument: inline (0) or 1, 2, 4 or 8 following bytes. */
export type CborArgumentWidth = 0 | 1 | 2 | 4 | 8;

const MAX_UINT64 = (1n << 64n) - 1n;
const ADDITIONAL_INFO = { 1: 24, 2: 25, 4: 26, 8: 27 } as const;

/**
 * Encodes `value` as CBOR (RFC 8949), canonical per CTAP2 §8 by default: minimal heads, definite
 * lengths, map keys sorted by major type, then encoded length, then bytewise.
 *
 * @example
 * Buffer.from(encodeCbor({ fmt: 'none', attStmt: {}, authData })).toString('base64url');
 */
export function encodeCbor(value: CborValue, options: CborEncodeOptions = {}): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  writeItem(value, options.canonical ?? true, chunks);
  return Buffer.concat(chunks);
}

/**
 * The head of a CBOR data item: major type 0..7 and its argument, minimal unless `width` forces a
 * longer (non-canonical) encoding. The building block for hand-made {@link CborRaw} vectors.
 *
 * @example
 * cborHead(2, 5, 2); // 0x59 0x00 0x05: a 5-byte byte-string head with a non-minimal length
 */
export function cborHead(
  majorType: number,
  argument: number | bigint,
  width?: CborArgumentWidth,
): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(majorType) || majorType < 0 || majorType > 7)
    throw new RangeError(`CBOR major type ${majorType} is not 0..7`);
  const arg = BigInt(argument);
  if (arg < 0n || arg > MAX_UINT64) throw new RangeError(`CBOR argument ${arg} is out of range`);
  const size = width ?? minimalWidth(arg);
  const top = majorType << 5;
  if (size === 0) {
    if (arg > 23n) throw new RangeError(`CBOR argument ${arg} does not fit inline`);
    return Uint8Array.of(top | Number(arg));
  }
  if (arg >= 1n << BigInt(8 * size)) throw new RangeError(`CBOR argument ${arg} does not fit in ${size} bytes`);
  const head = new Uint8Array(1 + size);
  head[0] = top | ADDITIONAL_INFO[size];
  let rest = arg;
  for (let i = size; i >= 1; i -= 1) {
    head[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return head;
}

/**
 * `depth` one-element arrays wrapped around `leaf` (built without recursion, so any depth works):
 * the deeply nested CBOR a decoder must refuse without exhausting its stack.
 *
 * @example
 * const attestationObject = cborDeeplyNested(100_000);
 */
export function cborDeeplyNested(depth: number, leaf: CborValue = 0): Uint8Array<ArrayBuffer> {
  return Buffer.concat([Buffer.alloc(depth, 0x81), encodeCbor(leaf)]);
}

function writeItem(value: CborValue, canonical: boolean, out: Uint8Array[]): void {
  if (value instanceof CborRaw) out.push(value.bytes);
  else if (value === null) out.push(Uint8Array.of(0xf6));
  else if (value === false) out.push(Uint8Array.of(0xf4));
  else if (value === true) out.push(Uint8Array.of(0xf5));
  else if (typeof value === 'number' || typeof value === 'bigint') writeInteger(value, out);
  else if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    out.push(cborHead(3, text.length), text);
  } else if (value instanceof Uint8Array) out.push(cborHead(2, value.length), value);
  else if (isArray(value)) {
    out.push(cborHead(4, value.length));
    for (const item of value) writeItem(item, canonical, out);
  } else {
    const entries = value instanceof Map ? [...(value as ReadonlyMap<CborValue, CborValue>)] : Object.entries(value);
    writeMap(entries, canonical, out);
  }
}

function writeInteger(value: number | bigint, out: Uint8Array[]): void {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`CBOR encoder supports integers only, got ${value}`);
  }
  const n = BigInt(value);
  out.push(n >= 0n ? cborHead(0, n) : cborHead(1, -1n - n));
}

function writeMap(
  entries: ReadonlyArray<readonly [CborValue, CborValue]>,
  canonical: boolean,
  out: Uint8Array[],
): void {
  const encoded = entries.map(([key, item]) => ({ key: encodeCbor(key, { canonical }), item }));
  if (canonical) {
    encoded.sort((a, b) => compareCanonicalKeys(a.key, b.key));
    for (let i = 1; i < encoded.length; i += 1) {
      if (compareCanonicalKeys(encoded[i - 1]!.key, encoded[i]!.key) === 0) {
        throw new RangeError('canonical CBOR maps cannot hold duplicate keys');
      }
    }
  }
  out.push(cborHead(5, encoded.length));
  for (const { key, item } of encoded) {
    out.push(key);
    writeItem(item, canonical, out);
  }
}

/**
 * CTAP2 §8 canonical key order: lower major type first, then the shorter encoding, then bytewise.
 *
 * @example
 * [encodeCbor(-1), encodeCbor(3)].sort(compareCanonicalKeys); // 3 (major 0) before -1 (major 1)
 */
export function compareCanonicalKeys(a: Uint8Array, b: Uint8Array): number {
  const major = (a[0]! >> 5) - (b[0]! >> 5);
  if (major !== 0) return major;
  if (a.length !== b.length) return a.length - b.length;
  return Buffer.compare(a, b);
}

function isArray(value: CborValue): value is readonly CborValue[] {
  return Array.isArray(value);
}

function minimalWidth(arg: bigint): CborArgumentWidth {
  if (arg < 24n) return 0;
  if (arg < 0x100n) return 1;
  if (arg < 0x10000n) return 2;
  if (arg < 0x100000000n) return 4;
  return 8;
}
