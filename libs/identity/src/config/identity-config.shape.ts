import { fail } from './identity-config.rules.js';

/**
 * Reads an options section: an object whose keys are all in `allowed` (unknown options fail with
 * `invalid_option`). Explicit `undefined` values are dropped, exactly like absent keys, so that they
 * take the default. `undefined` when the section is absent and optional.
 *
 * @example
 * const cookie = readSection(input.sessionCookie, 'sessionCookie', ['name', 'secure'], false) ?? {};
 */
export function readSection(
  value: unknown,
  path: string,
  allowed: readonly string[],
  required: boolean,
): Record<string, unknown> | undefined {
  if (value === undefined && !required) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('invalid_option', `${path} must be an object`);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) fail('invalid_option', `unknown option ${path}.${key}; allowed: ${allowed.join(', ')}`);
  }
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

/**
 * A copy of an array option (`undefined` when absent); anything else fails with `invalid_option`.
 *
 * @example
 * const origins = copyArray(input.allowedOrigins, 'allowedOrigins') ?? [input.publicBaseUrl];
 */
export function copyArray(value: unknown, path: string): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail('invalid_option', `${path} must be an array`);
  return [...value];
}

/**
 * `defaults` overlaid with `section`, copying every array-valued option.
 *
 * @example
 * const forwarding = mergeWithArrays(readSection(input.forwarding, ...), DEFAULT_FORWARDING, 'forwarding');
 */
export function mergeWithArrays<T extends object>(
  section: Record<string, unknown> | undefined,
  defaults: T,
  path: string,
): T {
  const merged: Record<string, unknown> = { ...defaults, ...section };
  for (const [key, value] of Object.entries(merged)) {
    if (Array.isArray((defaults as Record<string, unknown>)[key])) merged[key] = copyArray(value, `${path}.${key}`);
  }
  return merged as T;
}

/**
 * Freezes `value` and everything reachable from it.
 *
 * @example
 * const config = deepFreeze({ lifetimes: { ...DEFAULT_IDENTITY_LIFETIMES } });
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
