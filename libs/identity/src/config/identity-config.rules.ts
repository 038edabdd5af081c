import { IdentityConfigError, type IdentityConfigRule } from '../errors/identity-boot.errors.js';
import type { IdentityEnvironment } from './identity.config.js';

/**
 * RFC 9110 `token` (cookie and header names).
 *
 * @example
 * HTTP_TOKEN.test('X-Request-ID'); // true
 */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const ENVIRONMENT_WORDS: readonly IdentityEnvironment[] = ['development', 'test', 'staging', 'production'];

/**
 * Throws the {@link IdentityConfigError} of `rule`.
 *
 * @example
 * if (!ok) fail('forwarding', 'forwarding.trustedCidrs must not be empty');
 */
export function fail(rule: IdentityConfigRule, message: string): never {
  throw new IdentityConfigError(rule, message);
}

/**
 * `true` for staging and production, where every insecure development convenience is refused.
 *
 * @example
 * if (isHardened(config.environment) && !cookie.secure) fail('session_cookie', '...');
 */
export function isHardened(environment: IdentityEnvironment): boolean {
  return environment === 'staging' || environment === 'production';
}

/**
 * What kind of value an option holds, for messages. Config errors name the rule and the option
 * path, never the value: a secret pasted where a reference belongs must not reach the boot log.
 *
 * @example
 * kindOf('x'); // 'a string'
 */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'undefined') return 'undefined';
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * The environment names that appear as separate words (split on anything other than ASCII
 * letters and digits, case-insensitive) in `name`.
 *
 * @example
 * environmentWords('TESSERA_PRODUCTION_SESSION_PEPPER'); // ['production']
 */
export function environmentWords(name: string): IdentityEnvironment[] {
  const words = new Set(name.toLowerCase().split(/[^a-z0-9]+/));
  return ENVIRONMENT_WORDS.filter((environment) => words.has(environment));
}

/**
 * `true` when `name` names `environment` and no other environment.
 *
 * @example
 * belongsToEnvironment('tessera_production', 'production'); // true
 */
export function belongsToEnvironment(name: string, environment: IdentityEnvironment): boolean {
  const words = environmentWords(name);
  return words.length === 1 && words[0] === environment;
}

/**
 * Checks that `value` is an integer within `[min, max]`, failing with `rule`.
 *
 * @example
 * integerIn('audit', 'audit.retentionDays', value, 1, 3650);
 */
export function integerIn(
  rule: IdentityConfigRule,
  path: string,
  value: unknown,
  min: number,
  max: number,
  hint = '',
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const got =
      typeof value !== 'number'
        ? kindOf(value)
        : Number.isSafeInteger(value)
          ? 'a number out of range'
          : 'a non-integer';
    fail(rule, `${path} must be an integer between ${min} and ${max}${hint} (got ${got})`);
  }
  return value;
}

/**
 * Checks that `value` is a string, failing with `rule`.
 *
 * @example
 * const id = string('rp_invalid', 'rp.id', config.rp.id);
 */
export function string(rule: IdentityConfigRule, path: string, value: unknown): string {
  if (typeof value !== 'string') fail(rule, `${path} must be a string (got ${kindOf(value)})`);
  return value;
}

/**
 * Checks that `value` is one of `allowed`, failing with `rule`.
 *
 * @example
 * oneOf('audit', 'audit.userAgent', value, ['omit', 'pseudonymize'] as const);
 */
export function oneOf<T extends string>(
  rule: IdentityConfigRule,
  path: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    fail(rule, `${path} must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${kindOf(value)})`);
  }
  return value as T;
}
