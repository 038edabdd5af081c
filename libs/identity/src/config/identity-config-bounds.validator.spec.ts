import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError, type IdentityConfigRule } from '../errors/identity-boot.errors.js';
import type { IdentityLifetimes, IdentityLimits } from './identity-bounds.config.js';
import type { IdentityConfig } from './identity.config.js';
import { developmentIdentityConfig as dev, productionIdentityConfig as prod } from './identity-config.fixtures.js';
import { createIdentityConfig } from './identity-config.validator.js';

function expectRule(input: IdentityConfig, rule: IdentityConfigRule, fragment: string): void {
  let caught: unknown;
  try {
    createIdentityConfig(input);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(IdentityConfigError);
  expect((caught as IdentityConfigError).rule).toBe(rule);
  expect((caught as IdentityConfigError).message).toContain(fragment);
}

const DAY = 86_400;

describe('lifetime bounds (identity-model §3)', () => {
  it.each<[Partial<IdentityLifetimes>, string]>([
    [
      { sessionAbsoluteSeconds: 90 * DAY + 1 },
      'lifetimes.sessionAbsoluteSeconds must be an integer between 1 and 7776000',
    ],
    [
      { sessionIdleSeconds: 31 * DAY },
      'lifetimes.sessionIdleSeconds must be an integer between 1 and 2592000 (≤ lifetimes.sessionAbsoluteSeconds)',
    ],
    [{ touchIntervalSeconds: DAY + 1 }, 'lifetimes.touchIntervalSeconds'],
    [{ sessionCacheSeconds: 61 }, 'lifetimes.sessionCacheSeconds must be an integer between 0 and 60'],
    [{ challengeSeconds: 29 }, 'lifetimes.challengeSeconds must be an integer between 30 and 600'],
    [{ challengeSeconds: 601 }, 'lifetimes.challengeSeconds'],
    [{ stepUpWindowSeconds: 901 }, 'lifetimes.stepUpWindowSeconds must be an integer between 1 and 900'],
    [
      { adminRecoveryTicketSeconds: 299 },
      'lifetimes.adminRecoveryTicketSeconds must be an integer between 300 and 3600 (≥ lifetimes.challengeSeconds)',
    ],
    [{ adminRecoveryTicketSeconds: 3601 }, 'lifetimes.adminRecoveryTicketSeconds'],
    [{ restrictedSessionSeconds: 1801 }, 'lifetimes.restrictedSessionSeconds must be an integer between 1 and 1800'],
    [{ invitationSeconds: 0 }, 'lifetimes.invitationSeconds'],
    [{ deviceGrantSeconds: 1801 }, 'lifetimes.deviceGrantSeconds must be an integer between 1 and 1800'],
    [
      { devicePollingIntervalSeconds: 4 },
      'lifetimes.devicePollingIntervalSeconds must be an integer between 5 and 300',
    ],
    [{ deviceAccessTokenSeconds: 3601 }, 'lifetimes.deviceAccessTokenSeconds must be an integer between 1 and 3600'],
    [{ deviceTokenFamilySeconds: 90 * DAY + 1 }, 'lifetimes.deviceTokenFamilySeconds'],
    [{ refreshRetrySeconds: 61 }, 'lifetimes.refreshRetrySeconds must be an integer between 0 and 60'],
    [{ refreshRetrySeconds: -1 }, 'lifetimes.refreshRetrySeconds must be an integer between 0 and 60'],
    [{ refreshRetrySeconds: 2.5 }, 'lifetimes.refreshRetrySeconds must be an integer'],
    [{ serviceCredentialMaxSeconds: 90 * DAY + 1 }, 'lifetimes.serviceCredentialMaxSeconds'],
    [
      { serviceCredentialMaxSeconds: 10 * DAY },
      'lifetimes.serviceCredentialSeconds must be an integer between 1 and 864000 (≤ lifetimes.serviceCredentialMaxSeconds)',
    ],
    [{ serviceCredentialRotationOverlapSeconds: DAY + 1 }, 'lifetimes.serviceCredentialRotationOverlapSeconds'],
    [
      { federationCsrfCookieSeconds: 29 },
      'lifetimes.federationCsrfCookieSeconds must be an integer between 30 and 600',
    ],
    [{ sessionIdleSeconds: 1.5 }, 'lifetimes.sessionIdleSeconds must be an integer'],
    [{ sessionIdleSeconds: '3600' as unknown as number }, '(got a string)'],
  ])('refuses %p', (lifetimes, fragment) => {
    expectRule(dev({ lifetimes }), 'lifetime_bounds', fragment);
  });

  it('accepts values on the bounds', () => {
    const lifetimes: Partial<IdentityLifetimes> = {
      sessionAbsoluteSeconds: 90 * DAY,
      sessionIdleSeconds: 90 * DAY,
      challengeSeconds: 600,
      adminRecoveryTicketSeconds: 600,
      stepUpWindowSeconds: 900,
      restrictedSessionSeconds: 1800,
      devicePollingIntervalSeconds: 300,
      touchIntervalSeconds: 0,
      refreshRetrySeconds: 60,
    };
    expect(createIdentityConfig(dev({ lifetimes })).lifetimes.sessionIdleSeconds).toBe(90 * DAY);
  });

  it('accepts refreshRetrySeconds 0, which disables the refresh retry window', () => {
    expect(createIdentityConfig(dev({ lifetimes: { refreshRetrySeconds: 0 } })).lifetimes.refreshRetrySeconds).toBe(0);
  });
});

describe('limit bounds (identity-model §4)', () => {
  it.each<[Partial<IdentityLimits>, string]>([
    [{ jsonBodyBytes: 4095 }, 'limits.jsonBodyBytes must be an integer between 4096 and 4194304'],
    [{ jsonBodyBytes: 4 * 1024 * 1024 + 1 }, 'limits.jsonBodyBytes'],
    [{ formBodyBytes: 64 * 1024 + 1 }, 'limits.formBodyBytes must be an integer between 1024 and 65536'],
    [{ scimBodyBytes: 1023 }, 'limits.scimBodyBytes must be an integer between 1024 and 4194304'],
    [
      { outboundResponseBytes: 16 * 1024 * 1024 + 1 },
      'limits.outboundResponseBytes must be an integer between 1024 and 16777216',
    ],
    [{ auditPageSizeDefault: 101 }, 'limits.auditPageSizeDefault must be an integer between 1 and 100'],
    [{ auditPurgeBatchSize: 0 }, 'limits.auditPurgeBatchSize must be an integer between 1 and 500'],
    [{ auditExportMaxEvents: 0 }, 'limits.auditExportMaxEvents must be an integer between 1 and 10000000'],
    [{ auditExportMaxEvents: 10_000_001 }, 'limits.auditExportMaxEvents must be an integer between 1 and 10000000'],
  ])('refuses %p', (limits, fragment) => {
    expectRule(dev({ limits }), 'limit_bounds', fragment);
  });
});

describe('rate-limit policies (identity-http §10)', () => {
  it.each([
    [{ limit: 0, windowSeconds: 60 }, 'rateLimits.recovery_code.limit must be an integer between 1 and 10000'],
    [{ limit: 10_001, windowSeconds: 60 }, 'rateLimits.recovery_code.limit'],
    [{ limit: 5, windowSeconds: 0 }, 'rateLimits.recovery_code.windowSeconds must be an integer between 1 and 86400'],
    [{ limit: 5, windowSeconds: 86_401 }, 'rateLimits.recovery_code.windowSeconds'],
  ])('refuses the policy %p', (policy, fragment) => {
    expectRule(dev({ rateLimits: { recovery_code: policy } }), 'rate_limit_bounds', fragment);
  });

  it('refuses a policy that is neither an object nor false', () => {
    expectRule(
      dev({ rateLimits: { recovery_code: true as never } }),
      'invalid_option',
      'rateLimits.recovery_code must be an object',
    );
  });

  it('cannot be disabled in staging or production', () => {
    expectRule(
      prod({ rateLimits: { passkey_auth_start: false } }),
      'rate_limit_disabled',
      'rateLimits.passkey_auth_start cannot be disabled in production',
    );
  });

  it('accepts a partial override that keeps the default window', () => {
    expect(
      createIdentityConfig(prod({ rateLimits: { oauth_token: { limit: 120 } as never } })).rateLimits.oauth_token,
    ).toEqual({ limit: 120, windowSeconds: 60 });
  });
});

describe('audit options', () => {
  it('refuses an unknown user-agent mode and a retention over 3650 days', () => {
    expectRule(
      dev({ audit: { userAgent: 'raw' as never } }),
      'audit',
      "audit.userAgent must be one of 'omit', 'pseudonymize'",
    );
    expectRule(
      dev({ audit: { retentionDays: 3651 } }),
      'audit',
      'audit.retentionDays must be an integer between 1 and 3650 days',
    );
  });
});
