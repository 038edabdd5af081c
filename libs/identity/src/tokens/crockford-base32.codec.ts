/**
 * Crockford's base32 alphabet (https://www.crockford.com/base32.html): digits and upper-case
 * letters without I, L, O and U, so a code read aloud or written by hand has no look-alikes.
 */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const VALUES: ReadonlyMap<string, number> = new Map([
  ...[...CROCKFORD_ALPHABET].map((char, value) => [char, value] as const),
  // Decoding folds the look-alikes: O is zero, I and L are one.
  ['O', 0],
  ['I', 1],
  ['L', 1],
]);

// Checked before upper-casing: `'ı'.toUpperCase()` is `'I'`.
const ASCII_ALPHANUMERIC = /^[0-9A-Za-z]*$/;

/**
 * Bytes as Crockford base32, most significant bit first, without padding: the last character
 * carries the remaining bits followed by zero bits (16 bytes → 26 characters).
 *
 * @example
 * encodeCrockford(randomBytes(16)); // 'A3K9R0V7M2T8W5Q1Z6X4C0B9E8'
 */
export function encodeCrockford(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD_ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Exactly `byteLength` bytes from Crockford base32, case-insensitive with O, I and L folded, or
 * `undefined` for any other character, another length, or non-zero trailing bits (a string this
 * encoder never writes). Separators are the caller's to strip.
 *
 * @example
 * decodeCrockford('a3k9r0v7m2t8w5q1z6x4c0b9e8', 16); // 16 bytes
 */
export function decodeCrockford(text: string, byteLength: number): Buffer | undefined {
  if (text.length !== Math.ceil((byteLength * 8) / 5) || !ASCII_ALPHANUMERIC.test(text)) return undefined;
  const out = Buffer.alloc(byteLength);
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of text.toUpperCase()) {
    const value = VALUES.get(char);
    if (value === undefined) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >>> bits) & 0xff;
      buffer &= (1 << bits) - 1;
    }
  }
  return buffer === 0 ? out : undefined;
}
