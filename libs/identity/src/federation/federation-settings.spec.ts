import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { developmentIdentityConfig, productionIdentityConfig } from '../config/identity-config.fixtures.js';
import { createIdentityConfig } from '../config/identity-config.validator.js';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { SecretResolver } from '../runtime/secret.resolver.js';
import { resolveFederationSettings, staticProviderKey } from './federation-settings.js';
import type { StaticFederationProvider } from './federation.options.js';

const ORG = '0190a0a0-0000-7000-8000-000000000000';
const secrets: SecretResolver = {
  resolve: async (reference) => {
    if (reference === 'env:TESSERA_DEVELOPMENT_OIDC_SECRET') return Buffer.from('client-secret');
    throw new Error('unknown secret');
  },
};
const development = createIdentityConfig(developmentIdentityConfig());
const production = createIdentityConfig(productionIdentityConfig());

function certificatePem(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=idp.example.com',
      '-days',
      '1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(join(dir, 'cert.pem'), 'utf8');
}

const oidc = (over: Partial<StaticFederationProvider> = {}): StaticFederationProvider =>
  ({
    organizationId: ORG,
    providerId: 'entra',
    protocol: 'oidc',
    displayName: 'Entra ID',
    issuer: 'https://login.example.com/tenant/v2.0',
    clientId: 'client',
    clientSecretRef: 'env:TESSERA_DEVELOPMENT_OIDC_SECRET',
    ...over,
  }) as StaticFederationProvider;

const refusal = async (options: Parameters<typeof resolveFederationSettings>[0], config = development) => {
  try {
    await resolveFederationSettings(options, config, secrets);
    return undefined;
  } catch (error) {
    return error instanceof IdentityConfigError ? `${error.rule}: ${error.message}` : String(error);
  }
};

describe('federation options (IdentityModule.forRoot({ federation }))', () => {
  it('defaults: success path "/", self-service on, RFC 9207 strict, no static providers', async () => {
    const settings = await resolveFederationSettings(undefined, development, secrets);
    expect(settings).toMatchObject({ successPath: '/', selfService: true, allowMissingIssParameter: false });
    expect(settings.staticProviders.size).toBe(0);
  });

  it('resolves a static OIDC provider with its secret and storage key', async () => {
    const settings = await resolveFederationSettings({ providers: [oidc()] }, development, secrets);
    const provider = settings.staticProviders.get(staticProviderKey(ORG, 'entra'));
    expect(provider).toMatchObject({
      source: 'static',
      protocol: 'oidc',
      clientSecret: { kind: 'static', value: 'client-secret' },
    });
    expect(provider?.storageKey).toMatch(/^oidc\.[A-Za-z0-9_-]{43}$/);
  });

  it('resolves a static SAML provider', async () => {
    const pem = certificatePem();
    const settings = await resolveFederationSettings(
      {
        providers: [
          {
            organizationId: ORG,
            providerId: 'corp',
            protocol: 'saml',
            displayName: 'Corp',
            idpEntityId: 'https://idp.example.com/saml',
            ssoUrl: 'https://idp.example.com/sso',
            idpCertificatesPem: [pem],
            signaturePolicy: 'assertion',
          },
        ],
      },
      development,
      secrets,
    );
    expect(settings.staticProviders.get(staticProviderKey(ORG, 'corp'))?.storageKey).toMatch(/^saml\./);
  });

  it.each([
    ['a success path that is not a local path', { successPath: '//evil.example.com' }, 'federation.successPath'],
    ['an absolute success URL', { successPath: 'https://evil.example.com/' }, 'federation.successPath'],
    ['a bad provider id', { providers: [oidc({ providerId: 'Bad' })] }, 'providerId'],
    ['a bad tenant', { providers: [oidc({ organizationId: 'nope' })] }, 'organizationId'],
    [
      'an unresolvable secret',
      { providers: [oidc({ clientSecretRef: 'env:TESSERA_DEVELOPMENT_MISSING' })] },
      'clientSecretRef',
    ],
    ['a repeated provider', { providers: [oidc(), oidc()] }, 'repeats'],
    ['a non-https issuer', { providers: [oidc({ issuer: 'http://idp.example.com' })] }, 'issuer'],
  ])('refuses %s', async (_name, options, fragment) => {
    const message = await refusal(options as never);
    expect(message).toMatch(/^federation: /);
    expect(message).toContain(fragment);
    expect(message).not.toContain('client-secret');
  });

  it('allows an http://localhost issuer in development only', async () => {
    expect(await refusal({ providers: [oidc({ issuer: 'http://localhost:4000' })] })).toBeUndefined();
    expect(
      await refusal({ providers: [oidc({ issuer: 'http://localhost:4000', clientSecretRef: undefined })] }, production),
    ).toMatch(/issuer is refused \(insecure\)/);
  });
});
