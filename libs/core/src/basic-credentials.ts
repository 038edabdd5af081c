/**
 * The user-id and password of an HTTP Basic `Authorization` header (RFC 7617).
 *
 * @example
 * const { userId, password }: BasicCredentials = parseBasicAuthorization(header) ?? { userId: '', password: '' };
 */
export interface BasicCredentials {
  readonly userId: string;
  readonly password: string;
}

/**
 * Longer `Authorization` values are rejected before decoding.
 *
 * @example
 * if (header.length > MAX_BASIC_AUTHORIZATION_LENGTH) return null;
 */
export const MAX_BASIC_AUTHORIZATION_LENGTH = 4096;

const BASIC = /^basic +([A-Za-z0-9+/]+={0,2})$/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses one `Authorization` header value as RFC 7617 Basic credentials: scheme matched
 * case-insensitively, strict canonical base64 (standard alphabet, correct padding, no stray bits),
 * UTF-8 (invalid sequences rejected), split at the first `:`, a non-empty user-id and no control
 * characters in either part. Anything else → `null`.
 *
 * @example
 * parseBasicAuthorization('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=='); // { userId: 'Aladdin', password: 'open sesame' }
 */
export function parseBasicAuthorization(value: string): BasicCredentials | null {
  if (typeof value !== 'string' || value.length > MAX_BASIC_AUTHORIZATION_LENGTH) return null;
  const match = BASIC.exec(value.trim());
  if (match === null) return null;
  const encoded = match[1]!;
  if (encoded.length % 4 !== 0) return null;
  const bytes = Buffer.from(encoded, 'base64');
  // Node's decoder is lenient; re-encoding rejects non-zero padding bits and misplaced '='.
  if (bytes.toString('base64') !== encoded) return null;
  let decoded: string;
  try {
    decoded = UTF8.decode(bytes);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const userId = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (CONTROL.test(userId) || CONTROL.test(password)) return null;
  return { userId, password };
}
