import {
  IDENTITY_CONFIG_BOUNDS,
  LIFETIME_BOUNDS,
  LIMIT_BOUNDS,
  RATE_LIMIT_BOUNDS,
  type IdentityLifetimes,
  type IdentityLimits,
  type LifetimeBound,
} from './identity-bounds.config.js';
import type { RateLimitPolicyName, ResolvedIdentityConfig } from './identity.config.js';
import { fail, kindOf, integerIn, isHardened, oneOf } from './identity-config.rules.js';

/**
 * Lifetimes within §3 bounds. {@link LIFETIME_BOUNDS} lists every referenced lifetime before the
 * ones that refer to it (idle ≤ absolute, ticket ≥ challenge, default ≤ max), so each comparison
 * is against an already-validated value.
 *
 * @example
 * validateLifetimes(resolveIdentityConfig({ ...input, lifetimes: { challengeSeconds: 20 } })); // throws lifetime_bounds
 */
export function validateLifetimes(config: ResolvedIdentityConfig): void {
  const lifetimes = config.lifetimes;
  for (const [key, [minSpec, maxSpec]] of Object.entries(LIFETIME_BOUNDS) as [
    keyof IdentityLifetimes,
    LifetimeBound,
  ][]) {
    const min = typeof minSpec === 'number' ? minSpec : lifetimes[minSpec];
    const max = typeof maxSpec === 'number' ? maxSpec : lifetimes[maxSpec];
    const hint =
      typeof maxSpec === 'string'
        ? ` (≤ lifetimes.${maxSpec})`
        : typeof minSpec === 'string'
          ? ` (≥ lifetimes.${minSpec})`
          : ' seconds';
    integerIn('lifetime_bounds', `lifetimes.${key}`, lifetimes[key], min, max, hint);
  }
}

/**
 * Configurable limits within §4 bounds.
 *
 * @example
 * validateLimits(resolveIdentityConfig({ ...input, limits: { jsonBodyBytes: 1024 } })); // throws limit_bounds
 */
export function validateLimits(config: ResolvedIdentityConfig): void {
  for (const [key, [min, max]] of Object.entries(LIMIT_BOUNDS) as [keyof IdentityLimits, readonly [number, number]][]) {
    integerIn('limit_bounds', `limits.${key}`, config.limits[key], min, max);
  }
}

/**
 * Rate-limit policies: `limit` 1..10 000, `windowSeconds` 1..86 400; disabling a policy
 * (`false`) is allowed in development/test only.
 *
 * @example
 * validateRateLimits(resolveIdentityConfig({ ...prodInput, rateLimits: { bootstrap: false } })); // throws rate_limit_disabled
 */
export function validateRateLimits(config: ResolvedIdentityConfig): void {
  for (const [name, policy] of Object.entries(config.rateLimits) as [RateLimitPolicyName, unknown][]) {
    if (policy === false) {
      if (isHardened(config.environment)) {
        fail(
          'rate_limit_disabled',
          `rateLimits.${name} cannot be disabled in ${config.environment}; remove "false" to use the default or set { limit, windowSeconds }`,
        );
      }
      continue;
    }
    if (policy === null || typeof policy !== 'object') {
      fail('rate_limit_bounds', `rateLimits.${name} must be { limit, windowSeconds } or false (got ${kindOf(policy)})`);
    }
    const { limit, windowSeconds } = policy as { limit: unknown; windowSeconds: unknown };
    integerIn('rate_limit_bounds', `rateLimits.${name}.limit`, limit, ...RATE_LIMIT_BOUNDS.limit);
    integerIn(
      'rate_limit_bounds',
      `rateLimits.${name}.windowSeconds`,
      windowSeconds,
      ...RATE_LIMIT_BOUNDS.windowSeconds,
    );
  }
}

/**
 * Audit options: `userAgent` `omit | pseudonymize`, retention 1..3650 days.
 *
 * @example
 * validateAudit(resolveIdentityConfig({ ...input, audit: { retentionDays: 4000 } })); // throws audit
 */
export function validateAudit(config: ResolvedIdentityConfig): void {
  oneOf('audit', 'audit.userAgent', config.audit.userAgent, ['omit', 'pseudonymize'] as const);
  integerIn(
    'audit',
    'audit.retentionDays',
    config.audit.retentionDays,
    ...IDENTITY_CONFIG_BOUNDS.audit.retentionDays,
    ' days',
  );
}

/**
 * Maintenance options: the interval `0` (off) or 30..86400 seconds, 1..5000 rows per batch,
 * 1..1000 batches per run.
 *
 * @example
 * validateMaintenance(resolveIdentityConfig({ ...input, maintenance: { intervalSeconds: 5 } })); // throws maintenance
 */
export function validateMaintenance(config: ResolvedIdentityConfig): void {
  const { intervalSeconds, batchSize, maxBatchesPerRun } = config.maintenance;
  const bounds = IDENTITY_CONFIG_BOUNDS.maintenance;
  const off = IDENTITY_CONFIG_BOUNDS.offValues['maintenance.intervalSeconds'];
  if (intervalSeconds !== off) {
    const hint = ` seconds (or ${off} for off)`;
    integerIn('maintenance', 'maintenance.intervalSeconds', intervalSeconds, ...bounds.intervalSeconds, hint);
  }
  integerIn('maintenance', 'maintenance.batchSize', batchSize, ...bounds.batchSize, ' rows');
  integerIn('maintenance', 'maintenance.maxBatchesPerRun', maxBatchesPerRun, ...bounds.maxBatchesPerRun, ' batches');
}
