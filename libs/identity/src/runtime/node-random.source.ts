import crypto from 'node:crypto';
import type { RandomSource } from './identity.runtime.js';

/** Largest single draw; identity secrets are at most a few dozen bytes. */
const MAX_DRAW_BYTES = 65_536;
/** Draws up to this size come from the pool; larger ones go to the CSPRNG directly. */
const POOLED_DRAW_BYTES = 128;
const POOL_BYTES = 8192;

/**
 * Node's CSPRNG (`crypto.randomFillSync`) as a {@link RandomSource}. Small draws (ids, tokens,
 * challenges) are served from a pool filled 8 KiB at a time, as `crypto.randomUUID` does: every
 * byte is handed out once, copied into the caller's own buffer, and zeroed in the pool at once.
 *
 * @example
 * const secret = createNodeCryptoRandom().bytes(32);
 */
export function createNodeCryptoRandom(): RandomSource {
  const pool = Buffer.alloc(POOL_BYTES);
  let offset = POOL_BYTES;
  return Object.freeze({
    bytes(size: number): Uint8Array {
      if (!Number.isSafeInteger(size) || size < 0 || size > MAX_DRAW_BYTES) {
        throw new RangeError(`random draws are 0..${MAX_DRAW_BYTES} bytes`);
      }
      if (size > POOLED_DRAW_BYTES) return crypto.randomFillSync(Buffer.alloc(size));
      if (offset + size > POOL_BYTES) {
        crypto.randomFillSync(pool);
        offset = 0;
      }
      const draw = Buffer.alloc(size);
      pool.copy(draw, 0, offset, offset + size);
      pool.fill(0, offset, offset + size);
      offset += size;
      return draw;
    },
  });
}
