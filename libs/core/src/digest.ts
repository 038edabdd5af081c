import crypto from 'node:crypto';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/**
 * The lower-case hex SHA-256 digest of a UTF-8 string: how API keys and session tokens are
 * configured and stored (the secret itself never is).
 *
 * @example
 * const digest = sha256Hex(process.env.METRICS_API_KEY!); // put this in configuration, not the key
 */
export function sha256Hex(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * `true` for a lower-case 64-character hex SHA-256 digest.
 *
 * @example
 * if (!isSha256Hex(configured)) throw new Error('configure sha256Hex(key), not the key');
 */
export function isSha256Hex(value: unknown): value is string {
  return typeof value === 'string' && HEX_DIGEST.test(value);
}

/**
 * Constant-time equality of two byte strings; a length mismatch is `false` (never a throw).
 * Callers compare fixed-size digests, so the length check leaks nothing secret.
 *
 * @example
 * const ok = digestsEqual(presentedDigest, configuredDigest);
 */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return crypto.timingSafeEqual(a, b);
}

/**
 * Constant-time comparison of two strings of any length, through their SHA-256 digests: for
 * `BasicAuthenticationProvider` verifiers that check a password against configuration.
 *
 * @example
 * verify: async ({ userId, password }) => {
 *   const userOk = constantTimeEqual(userId, 'prometheus');
 *   const passwordOk = constantTimeEqual(password, secret); // always evaluated: no early exit
 *   return userOk && passwordOk ? principal : null;
 * }
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = crypto.createHash('sha256').update(a, 'utf8').digest();
  const right = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(left, right);
}
