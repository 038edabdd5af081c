import crypto from 'node:crypto';
import type { RandomSource } from './identity.runtime.js';

/** Largest single draw; identity secrets are at most a few dozen bytes. */
const MAX_DRAW_BYTES = 65_536;

/**
 * Node's CSPRNG (`crypto.randomFillSync`) as a {@link RandomSource}.
 *
 * @example
 * const secret = createNodeCryptoRandom().bytes(32);
 */
export function createNodeCryptoRandom(): RandomSource {
  return Object.freeze({
    bytes(size: number): Uint8Array {
      if (!Number.isSafeInteger(size) || size < 0 || size > MAX_DRAW_BYTES) {
        throw new RangeError(`random draws are 0..${MAX_DRAW_BYTES} bytes`);
      }
      return crypto.randomFillSync(Buffer.alloc(size));
    },
  });
}
