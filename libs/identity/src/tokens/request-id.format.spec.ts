import { describe, expect, it } from '@jest/globals';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import { generateRequestId, isAcceptableRequestId, resolveRequestId } from './request-id.format.js';

const random = createNodeCryptoRandom();

describe('request ids', () => {
  it('are req_ + base64url of 16 random bytes', () => {
    const id = generateRequestId(random);
    expect(id).toMatch(/^req_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id.slice(4), 'base64url')).toHaveLength(16);
    expect(isAcceptableRequestId(id)).toBe(true);
  });

  it('accept 1..255 characters of [A-Za-z0-9._:-] only', () => {
    expect(isAcceptableRequestId('trace:abc-1.2_3')).toBe(true);
    expect(isAcceptableRequestId('x'.repeat(255))).toBe(true);
    expect(isAcceptableRequestId('x'.repeat(256))).toBe(false);
    expect(isAcceptableRequestId('')).toBe(false);
    expect(isAcceptableRequestId('a b')).toBe(false);
    expect(isAcceptableRequestId('abc\r\nSet-Cookie: x=1')).toBe(false);
    expect(isAcceptableRequestId('abc/def')).toBe(false);
  });

  it('reuse a single valid header value and mint a new id when absent, invalid or repeated', () => {
    expect(resolveRequestId(['trace-1'], random)).toBe('trace-1');
    expect(resolveRequestId([], random)).toMatch(/^req_/);
    expect(resolveRequestId(['bad value'], random)).toMatch(/^req_/);
    expect(resolveRequestId(['a', 'a'], random)).toMatch(/^req_/);
  });
});
