import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError, type IdentityConfigRule } from '../errors/identity-boot.errors.js';
import type { IdentityConfig } from './identity.config.js';
import {
  developmentIdentityConfig as dev,
  identitySecretReferences,
  productionIdentityConfig as prod,
} from './identity-config.fixtures.js';
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

const prodSecrets = identitySecretReferences('production');

describe('validateIdentityConfig: valid configurations', () => {
  it('accepts a minimal development configuration', () => {
    expect(createIdentityConfig(dev()).environment).toBe('development');
  });

  it('accepts a production configuration with HTTPS origins under the RP ID and PostgreSQL', () => {
    expect(createIdentityConfig(prod()).allowedOrigins).toEqual(['https://id.example.com', 'https://app.example.com']);
  });

  it('accepts a test configuration and refuses an IP-literal loopback origin outside the RP ID', () => {
    expectRule(
      {
        ...dev({ allowedOrigins: ['http://localhost:3000', 'http://127.0.0.1:3000'] }),
        environment: 'test',
        secrets: identitySecretReferences('test'),
      },
      'origin_outside_rp_id',
      'allowedOrigins[1] must have a host equal to or under rp.id',
    );
    expect(
      createIdentityConfig({ ...dev(), environment: 'test', secrets: identitySecretReferences('test') })
        .storageNamespace,
    ).toBe('tessera_test');
  });

  it('accepts open registration, disabled rate limits and a pending bootstrap in development', () => {
    const config = createIdentityConfig(
      dev({
        registrationPolicy: 'open',
        rateLimits: { bootstrap: false },
        bootstrap: { lifecycle: 'pending', secretRef: 'env:TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET' },
      }),
    );
    expect(config.registrationPolicy).toBe('open');
  });

  it('accepts rotated peppers, a __Secure- cookie with a domain, trusted proxies and allowlists in production', () => {
    const config = createIdentityConfig(
      prod({
        secrets: {
          ...prodSecrets,
          sessionPepper: {
            current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v3',
            previous: ['env:TESSERA_PRODUCTION_SESSION_PEPPER@v2', 'env:TESSERA_PRODUCTION_SESSION_PEPPER'],
          },
        },
        sessionCookie: { name: '__Secure-tessera_session', domain: 'example.com' },
        forwarding: { mode: 'trusted_cidrs', trustedCidrs: ['10.0.0.0/8', '2001:db8::/32'] },
        capabilities: { device: ['audit.read', 'package.publish'], service: ['content.read'] },
        bootstrap: { lifecycle: 'pending', secretRef: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET' },
      }),
    );
    expect(config.sessionCookie.domain).toBe('example.com');
  });
});

describe('validateIdentityConfig: registration and bootstrap', () => {
  it('refuses the open policy outside development', () => {
    expectRule(prod({ registrationPolicy: 'open' }), 'registration_policy', 'allowed in development only');
    expectRule(
      { ...dev({ registrationPolicy: 'open' }), environment: 'test', secrets: identitySecretReferences('test') },
      'registration_policy',
      'development only',
    );
  });

  it('refuses an unknown registration policy', () => {
    expectRule(
      dev({ registrationPolicy: 'everyone' as never }),
      'registration_policy',
      "must be one of 'invitation_only'",
    );
  });

  it('requires a bootstrap secret while production bootstrap is pending', () => {
    expectRule(prod({ bootstrap: { lifecycle: 'pending' } }), 'bootstrap_secret_required', 'needs bootstrap.secretRef');
  });

  it('forbids a bootstrap secret once bootstrap is retired', () => {
    expectRule(
      prod({ bootstrap: { lifecycle: 'retired', secretRef: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET' } }),
      'bootstrap_secret_forbidden',
      'forbids bootstrap.secretRef',
    );
  });
});

describe('validateIdentityConfig: store and headers', () => {
  it('refuses embedded PGlite in staging and production (the default store kind)', () => {
    expectRule(prod({ store: { kind: 'pglite' } }), 'store_kind', 'PGlite is refused in production');
    const staging = { ...prod(), environment: 'staging' as const, secrets: identitySecretReferences('staging') };
    delete (staging as Partial<IdentityConfig>).store;
    expectRule(staging, 'store_kind', 'PGlite is refused in staging');
  });

  it('refuses a request-id header name that is not an HTTP token', () => {
    expectRule(dev({ requestIdHeader: 'X Request ID' }), 'request_id_header', 'must be an HTTP header name');
    expectRule(dev({ requestIdHeader: '' }), 'request_id_header', 'requestIdHeader');
  });
});

describe('validateIdentityConfig: openApi', () => {
  it('serves the OpenAPI document by default in development, not in production unless asked for', () => {
    expect(createIdentityConfig(dev()).openApi).toBe(true);
    expect(createIdentityConfig(prod()).openApi).toBe(false);
    expect(createIdentityConfig(prod({ openApi: true })).openApi).toBe(true);
  });

  it('refuses an openApi that is not a boolean', () => {
    expectRule(dev({ openApi: 'yes' as unknown as boolean }), 'invalid_option', 'openApi must be a boolean');
  });
});
