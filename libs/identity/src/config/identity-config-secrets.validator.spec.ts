import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError, type IdentityConfigRule } from '../errors/identity-boot.errors.js';
import type { IdentityConfig } from './identity.config.js';
import { identitySecretReferences, productionIdentityConfig as prod } from './identity-config.fixtures.js';
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

describe('validateIdentityConfig: secret references and namespace', () => {
  it('refuses a reference that is not <scheme>:<name>[@vN]', () => {
    expectRule(
      prod({ secrets: { ...prodSecrets, auditKey: 'TESSERA_PRODUCTION_AUDIT_KEY' } }),
      'secret_reference_invalid',
      'secrets.auditKey',
    );
  });

  it('refuses two options naming the same secret, including env:X vs env:X@v1', () => {
    expectRule(
      prod({ secrets: { ...prodSecrets, encryptionKey: prodSecrets.auditKey } }),
      'secret_reference_duplicate',
      'secrets.encryptionKey',
    );
    expectRule(
      prod({ secrets: { ...prodSecrets, signingKey: `${prodSecrets.sessionPepper.current}@v1` } }),
      'secret_reference_duplicate',
      'same secret as secrets.sessionPepper.current',
    );
    expectRule(
      prod({ bootstrap: { lifecycle: 'pending', secretRef: prodSecrets.auditKey } }),
      'secret_reference_duplicate',
      'bootstrap.secretRef',
    );
  });

  it('refuses a reference that does not belong to the environment', () => {
    expectRule(
      prod({ secrets: { ...prodSecrets, auditKey: 'env:TESSERA_STAGING_AUDIT_KEY' } }),
      'secret_reference_environment',
      'names another environment (staging)',
    );
    expectRule(
      prod({ secrets: { ...prodSecrets, auditKey: 'env:TESSERA_AUDIT_KEY' } }),
      'secret_reference_environment',
      'does not name the environment',
    );
    expectRule(
      prod({ secrets: { ...prodSecrets, auditKey: 'env:TESSERA_PRODUCTION_TEST_AUDIT_KEY' } }),
      'secret_reference_environment',
      '(test)',
    );
    expectRule(
      prod({ secrets: { ...prodSecrets, auditKey: 'env:TESSERA_PRODUCTIONAUDIT' } }),
      'secret_reference_environment',
      'PRODUCTION',
    );
  });

  it('refuses more than five previous pepper versions and previous versions not below the current one', () => {
    const previous = [6, 5, 4, 3, 2, 1].map((v) => `env:TESSERA_PRODUCTION_DEVICE_PEPPER@v${v}`);
    expectRule(
      prod({
        secrets: { ...prodSecrets, devicePepper: { current: 'env:TESSERA_PRODUCTION_DEVICE_PEPPER@v7', previous } },
      }),
      'key_ring',
      'at most 5 previous',
    );
    expectRule(
      prod({
        secrets: {
          ...prodSecrets,
          devicePepper: {
            current: 'env:TESSERA_PRODUCTION_DEVICE_PEPPER',
            previous: ['env:TESSERA_PRODUCTION_DEVICE_PEPPER@v2'],
          },
        },
      }),
      'key_ring',
      'must be below the current version 1',
    );
  });

  it('refuses a namespace that breaks the pattern or does not name the environment', () => {
    expectRule(prod({ storageNamespace: 'Tessera' }), 'storage_namespace', '^[a-z][a-z0-9_-]{2,63}$');
    expectRule(
      prod({ storageNamespace: 'tessera_staging' }),
      'storage_namespace',
      'must contain the word "production"',
    );
    expectRule(prod({ storageNamespace: 'tessera_production_test' }), 'storage_namespace', 'no other environment name');
  });
});
