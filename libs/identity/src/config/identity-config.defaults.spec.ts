import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { IdentityConfig } from './identity.config.js';
import { DEFAULT_RATE_LIMITS, resolveIdentityConfig } from './identity-config.defaults.js';
import { developmentIdentityConfig } from './identity-config.fixtures.js';

describe('resolveIdentityConfig', () => {
  it('applies every default in one place', () => {
    const config = resolveIdentityConfig(developmentIdentityConfig());
    expect(config.allowedOrigins).toEqual(['http://localhost:3000']);
    expect(config.registrationPolicy).toBe('invitation_only');
    expect(config.bootstrap).toEqual({ lifecycle: 'retired' });
    expect(config.lifetimes).toMatchObject({
      sessionAbsoluteSeconds: 2_592_000,
      sessionIdleSeconds: 86_400,
      touchIntervalSeconds: 60,
      challengeSeconds: 300,
      stepUpWindowSeconds: 300,
      deviceGrantSeconds: 600,
      devicePollingIntervalSeconds: 5,
      deviceAccessTokenSeconds: 900,
      deviceTokenFamilySeconds: 2_592_000,
      refreshRetrySeconds: 30,
    });
    expect(config.limits).toMatchObject({
      jsonBodyBytes: 1_048_576,
      formBodyBytes: 32_768,
      outboundResponseBytes: 4_194_304,
    });
    expect(config.sessionCookie).toEqual({
      name: '__Host-tessera_session',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
    });
    expect(config.forwarding).toEqual({ mode: 'direct_only', trustedCidrs: [] });
    expect(config.storageNamespace).toBe('tessera_development');
    expect(config.capabilities).toEqual({ device: [], service: [] });
    expect(config.audit).toEqual({ userAgent: 'omit', retentionDays: 90 });
    expect(config.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(config.rateLimits.device_user_code).toEqual({ limit: 20, windowSeconds: 600 });
    expect(config.requestIdHeader).toBe('X-Request-ID');
    expect(config.store).toEqual({ kind: 'pglite' });
  });

  it('merges partial sections over the defaults and returns a deeply frozen copy', () => {
    const input = developmentIdentityConfig({
      lifetimes: { sessionIdleSeconds: 3600 },
      rateLimits: { recovery_code: { limit: 3, windowSeconds: 60 }, bootstrap: false },
      sessionCookie: { sameSite: 'strict' },
      capabilities: { device: ['package.publish'] },
    });
    const config = resolveIdentityConfig(input);
    expect(config.lifetimes.sessionIdleSeconds).toBe(3600);
    expect(config.lifetimes.sessionAbsoluteSeconds).toBe(2_592_000);
    expect(config.rateLimits.recovery_code).toEqual({ limit: 3, windowSeconds: 60 });
    expect(config.rateLimits.bootstrap).toBe(false);
    expect(config.sessionCookie.sameSite).toBe('strict');
    expect(config.sessionCookie.name).toBe('__Host-tessera_session');
    expect(config.capabilities).toEqual({ device: ['package.publish'], service: [] });
    expect(Object.isFrozen(config.capabilities.device)).toBe(true);
    expect(Object.isFrozen(config.lifetimes)).toBe(true);
    (input.capabilities!.device as string[]).push('content.read');
    expect(config.capabilities.device).toEqual(['package.publish']);
  });

  it.each<[string, unknown, string]>([
    [
      'an unknown top-level option',
      { ...developmentIdentityConfig(), sesionCookie: {} },
      'unknown option config.sesionCookie',
    ],
    [
      'an unknown lifetime',
      developmentIdentityConfig({ lifetimes: { fed1WindowSeconds: 60 } as never }),
      'unknown option lifetimes.fed1WindowSeconds',
    ],
    [
      'an unknown rate-limit policy',
      developmentIdentityConfig({ rateLimits: { login: false } as never }),
      'unknown option rateLimits.login',
    ],
    [
      'an unknown environment',
      developmentIdentityConfig({ environment: 'prod' as never }),
      'environment must be one of',
    ],
    ['a missing rp section', { ...developmentIdentityConfig(), rp: undefined }, 'rp must be an object'],
    [
      'a pepper given as a string',
      developmentIdentityConfig({
        secrets: { ...developmentIdentityConfig().secrets, sessionPepper: 'env:X' as never },
      }),
      'secrets.sessionPepper must be an object',
    ],
    [
      'allowedOrigins given as a string',
      developmentIdentityConfig({ allowedOrigins: 'http://localhost:3000' as never }),
      'allowedOrigins must be an array',
    ],
  ])('refuses %s', (_name, input, message) => {
    expect(() => resolveIdentityConfig(input as IdentityConfig)).toThrow(IdentityConfigError);
    expect(() => resolveIdentityConfig(input as IdentityConfig)).toThrow(message);
  });
});
