import type { RandomSource } from '../runtime/identity.runtime.js';
import { encodeBase64Url } from './base64url.codec.js';

/**
 * Which incoming request ids are reused (`identity-http.md` §2, stage 1).
 *
 * @example
 * REQUEST_ID_PATTERN.test('trace-1234'); // true
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,255}$/;

/**
 * `true` when `value` may be reused as the request id.
 *
 * @example
 * isAcceptableRequestId('abc def'); // false
 */
export function isAcceptableRequestId(value: unknown): value is string {
  return typeof value === 'string' && REQUEST_ID_PATTERN.test(value);
}

/**
 * A new request id: `req_` + base64url(16 random bytes) (26 chars).
 *
 * @example
 * generateRequestId(runtime.random); // 'req_3q2-7wAAAAAAAAAAAAAAAA'
 */
export function generateRequestId(random: RandomSource): string {
  const bytes = random.bytes(16);
  if (bytes.byteLength !== 16) throw new RangeError('random source returned the wrong number of bytes');
  return `req_${encodeBase64Url(bytes)}`;
}

/**
 * The request id of a request: the single incoming header value when it is acceptable,
 * otherwise (absent, invalid or sent more than once) a new one.
 *
 * @example
 * const requestId = resolveRequestId(exchange.headerValues('X-Request-ID'), runtime.random);
 */
export function resolveRequestId(headerValues: readonly string[], random: RandomSource): string {
  if (headerValues.length === 1 && isAcceptableRequestId(headerValues[0])) return headerValues[0];
  return generateRequestId(random);
}
