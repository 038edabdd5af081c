import { Buffer } from 'node:buffer';
import { describe, expect, it } from '@jest/globals';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { CborRaw, cborDeeplyNested, cborHead, encodeCbor, type CborValue } from './cbor.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('encodeCbor', () => {
  it.each<[CborValue, string]>([
    [0, '00'],
    [23, '17'],
    [24, '1818'],
    [100, '1864'],
    [1000, '1903e8'],
    [1000000, '1a000f4240'],
    [1000000000000, '1b000000e8d4a51000'],
    [18446744073709551615n, '1bffffffffffffffff'],
    [-1, '20'],
    [-10, '29'],
    [-100, '3863'],
    [-1000, '3903e7'],
    [-18446744073709551616n, '3bffffffffffffffff'],
    [false, 'f4'],
    [true, 'f5'],
    [null, 'f6'],
    [new Uint8Array(0), '40'],
    [Uint8Array.of(1, 2, 3, 4), '4401020304'],
    ['', '60'],
    ['IETF', '6449455446'],
    ['\u00fc', '62c3bc'],
    ['\u6c34', '63e6b0b4'],
    [[], '80'],
    [[1, [2, 3], [4, 5]], '8301820203820405'],
    [{}, 'a0'],
    [{ a: 1, b: [2, 3] }, 'a26161016162820203'],
  ])('encodes the RFC 8949 appendix A vector %p as %s', (value, expected) => {
    expect(hex(encodeCbor(value))).toBe(expected);
  });

  it('encodes a 25-element array with a one-byte length head', () => {
    const items = Array.from({ length: 25 }, (_, i) => i + 1);
    expect(hex(encodeCbor(items))).toBe(`9819${items.map((i) => hex(encodeCbor(i))).join('')}`);
  });

  it('sorts map keys in CTAP2 canonical order: major type, then length, then bytes', () => {
    const map = new Map<CborValue, CborValue>([
      ['aa', 0],
      ['b', 0],
      [Uint8Array.of(0), 0],
      ['a', 0],
      [-1, 0],
      [24, 0],
      [10, 0],
    ]);
    // 10 (0a) and 24 (1818) are major 0, -1 major 1, h'00' major 2, then texts shortest first.
    expect(hex(encodeCbor(map))).toBe(
      'a7' + ['0a', '1818', '20', '4100', '6161', '6162', '626161'].map((k) => `${k}00`).join(''),
    );
  });

  it('encodes an EC2 P-256 COSE_Key in the order {1, 3, -1, -2, -3} whatever the insertion order', () => {
    const x = new Uint8Array(32).fill(0x11);
    const y = new Uint8Array(32).fill(0x22);
    const shuffled = new Map<CborValue, CborValue>([
      [-3, y],
      [-1, 1],
      [3, -7],
      [-2, x],
      [1, 2],
    ]);
    expect(hex(encodeCbor(shuffled))).toBe(`a5010203262001215820${hex(x)}225820${hex(y)}`);
  });

  it('orders the attestation object keys fmt, attStmt, authData', () => {
    const encoded = encodeCbor({ authData: Uint8Array.of(1), attStmt: {}, fmt: 'none' });
    expect(hex(encoded)).toBe('a3' + '63666d74646e6f6e65' + '6761747453746d74a0' + '68617574684461746141' + '01');
    expect(isoCBOR.decodeFirst<Map<string, unknown>>(encoded).get('fmt')).toBe('none');
  });

  it('refuses duplicate keys in canonical mode and keeps them, in order, when asked not to be canonical', () => {
    const duplicated = new Map<CborValue, CborValue>([
      [Uint8Array.of(1), 1],
      [Uint8Array.of(1), 2],
    ]);
    expect(() => encodeCbor(duplicated)).toThrow(RangeError);
    expect(hex(encodeCbor(duplicated, { canonical: false }))).toBe('a2410101410102');
    expect(hex(encodeCbor({ b: 1, a: 2 }, { canonical: false }))).toBe('a2616201616102');
  });

  it('refuses numbers that are not safe integers', () => {
    expect(() => encodeCbor(1.5)).toThrow(RangeError);
    expect(() => encodeCbor(2 ** 60)).toThrow(RangeError);
  });

  it('emits CborRaw bytes verbatim inside a canonical frame', () => {
    expect(hex(encodeCbor([new CborRaw(Uint8Array.of(0x18, 0x01)), 1]))).toBe('82180101');
  });
});

describe('cborHead', () => {
  it('writes minimal heads unless a longer width is forced', () => {
    expect(hex(cborHead(0, 1))).toBe('01');
    expect(hex(cborHead(0, 1, 1))).toBe('1801');
    expect(hex(cborHead(2, 5, 2))).toBe('590005');
    expect(hex(cborHead(5, 0, 8))).toBe('bb0000000000000000');
    expect(hex(cborHead(4, 0x10000))).toBe('9a00010000');
  });

  it('refuses arguments that do not fit the requested width', () => {
    expect(() => cborHead(0, 24, 0)).toThrow(RangeError);
    expect(() => cborHead(0, 256, 1)).toThrow(RangeError);
    expect(() => cborHead(8, 0)).toThrow(RangeError);
  });
});

describe('cborDeeplyNested', () => {
  it('wraps the leaf in one-element arrays without recursing', () => {
    expect(hex(cborDeeplyNested(3))).toBe('81818100');
    expect(cborDeeplyNested(100_000)).toHaveLength(100_001);
  });
});
