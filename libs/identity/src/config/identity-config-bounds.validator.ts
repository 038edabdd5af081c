import type { IdentityLifetimes, IdentityLimits } from './identity-bounds.config.js';
import type { RateLimitPolicyName, ResolvedIdentityConfig } from './identity.config.js';
import { fail, kindOf, integerIn, isHardened, oneOf } from './identity-config.rules.js';

const DAY = 86_400;
const KIB = 1024;
const MIB = 1024 * KIB;

type Bound = readonly [min: number | keyof IdentityLifetimes, max: number | keyof IdentityLifetimes];

/**
 * Lifetime bounds in seconds (`identity-model.md` §3); a key name means "that other lifetime".
 *
 * @example
 * LIFETIME_BOUNDS.challengeSeconds; // [30, 600]
 */
export const LIFETIME_BOUNDS: Readonly<Record<keyof IdentityLifetimes, Bound>> = Object.freeze({
  sessionAbsoluteSeconds: [1, 90 * DAY],
  sessionIdleSeconds: [1, 'sessionAbsoluteSeconds'],
  touchIntervalSeconds: [0, 'sessionIdleSeconds'],
  sessionCacheSeconds: [0, 5],
  challengeSeconds: [30, 600],
  stepUpWindowSeconds: [1, 900],
  adminRecoveryTicketSeconds: ['challengeSeconds', 3600],
  restrictedSessionSeconds: [1, 1800],
  invitationSeconds: [1, 365 * DAY],
  deviceGrantSeconds: [1, 1800],
  devicePollingIntervalSeconds: [5, 300],
  deviceAccessTokenSeconds: [1, 3600],
  deviceTokenFamilySeconds: [1, 90 * DAY],
  serviceCredentialMaxSeconds: [1, 90 * DAY],
  serviceCredentialSeconds: [1, 'serviceCredentialMaxSeconds'],
  serviceCredentialRotationOverlapSeconds: [0, DAY],
  federationCsrfCookieSeconds: [30, 600],
});

/**
 * Configurable limit bounds (`identity-model.md` §4).
 *
 * @example
 * LIMIT_BOUNDS.jsonBodyBytes; // [4096, 4194304]
 */
export const LIMIT_BOUNDS: Readonly<Record<keyof IdentityLimits, readonly [number, number]>> = Object.freeze({
  jsonBodyBytes: [4 * KIB, 4 * MIB],
  formBodyBytes: [KIB, 64 * KIB],
  scimBodyBytes: [KIB, 4 * MIB],
  outboundResponseBytes: [KIB, 16 * MIB],
  auditPageSizeDefault: [1, 100],
  auditPurgeBatchSize: [1, 500],
});

/**
 * Rate-limit policy bounds (`identity-http.md` §10).
 *
 * @example
 * RATE_LIMIT_BOUNDS.limit; // [1, 10000]
 */
export const RATE_LIMIT_BOUNDS = Object.freeze({ limit: [1, 10_000] as const, windowSeconds: [1, 86_400] as const });

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
  for (const [key, [minSpec, maxSpec]] of Object.entries(LIFETIME_BOUNDS) as [keyof IdentityLifetimes, Bound][]) {
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
  integerIn('audit', 'audit.retentionDays', config.audit.retentionDays, 1, 3650, ' days');
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
  if (intervalSeconds !== 0)
    integerIn('maintenance', 'maintenance.intervalSeconds', intervalSeconds, 30, 86_400, ' seconds (or 0 for off)');
  integerIn('maintenance', 'maintenance.batchSize', batchSize, 1, 5000, ' rows');
  integerIn('maintenance', 'maintenance.maxBatchesPerRun', maxBatchesPerRun, 1, 1000, ' batches');
}
