import type { IdentityConfig, IdentityEnvironment, IdentitySecretsConfig } from './identity.config.js';

/**
 * Secret references following the environment-name rule, e.g. `env:TESSERA_TEST_SESSION_PEPPER`.
 *
 * @example
 * const secrets = identitySecretReferences('test');
 */
export function identitySecretReferences(environment: IdentityEnvironment): IdentitySecretsConfig {
  const ref = (name: string): string => `env:TESSERA_${environment.toUpperCase()}_${name}`;
  return {
    sessionPepper: { current: ref('SESSION_PEPPER') },
    recoveryPepper: { current: ref('RECOVERY_PEPPER') },
    devicePepper: { current: ref('DEVICE_PEPPER') },
    servicePepper: { current: ref('SERVICE_PEPPER') },
    auditKey: ref('AUDIT_KEY'),
    encryptionKey: ref('ENCRYPTION_KEY'),
    signingKey: ref('SIGNING_KEY'),
  };
}

/**
 * A minimal valid development configuration on `http://localhost:3000`.
 *
 * @example
 * const config = createIdentityConfig(developmentIdentityConfig({ registrationPolicy: 'open' }));
 */
export function developmentIdentityConfig(overrides: Partial<IdentityConfig> = {}): IdentityConfig {
  return {
    environment: 'development',
    publicBaseUrl: 'http://localhost:3000',
    rp: { id: 'localhost', name: 'Tessera' },
    secrets: identitySecretReferences('development'),
    ...overrides,
  };
}

/**
 * A minimal valid production configuration on `https://id.example.com` with a PostgreSQL store.
 *
 * @example
 * const config = createIdentityConfig(productionIdentityConfig());
 */
export function productionIdentityConfig(overrides: Partial<IdentityConfig> = {}): IdentityConfig {
  return {
    environment: 'production',
    publicBaseUrl: 'https://id.example.com',
    allowedOrigins: ['https://id.example.com', 'https://app.example.com'],
    rp: { id: 'example.com', name: 'Example' },
    secrets: identitySecretReferences('production'),
    store: { kind: 'postgresql' },
    ...overrides,
  };
}
