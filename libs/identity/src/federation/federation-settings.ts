import type { ResolvedIdentityConfig } from '../config/identity.config.js';
import { fail, kindOf } from '../config/identity-config.rules.js';
import { isUuidV7 } from '../http/request-fields.js';
import type { SecretResolver } from '../runtime/secret.resolver.js';
import { federationStorageKey } from './federation-keys.js';
import {
  checkIdpUrl,
  PROVIDER_ID_PATTERN,
  type FederationProvider,
  type OidcClientSecret,
} from './federation-provider.js';
import type { IdentityFederationOptions, StaticFederationProvider } from './federation.options.js';

const SIGNATURE_POLICIES = new Set(['assertion', 'response', 'both', 'assertion_or_response']);
const VISIBLE_ASCII = /^[\x21-\x7e]{1,200}$/;
const PEM_CERTIFICATE = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/;

/**
 * The federation options after validation at boot: defaults applied, static providers checked and
 * their client secrets resolved.
 *
 * @example
 * const provider = settings.staticProvider(organizationId, 'entra');
 */
export interface FederationSettings {
  readonly successPath: string;
  readonly selfService: boolean;
  readonly allowMissingIssParameter: boolean;
  /** Static providers by `<organizationId>/<providerId>`. */
  readonly staticProviders: ReadonlyMap<string, FederationProvider>;
}

/**
 * The key of {@link FederationSettings.staticProviders}.
 *
 * @example
 * settings.staticProviders.get(staticProviderKey(organizationId, providerId));
 */
export function staticProviderKey(organizationId: string, providerId: string): string {
  return `${organizationId}/${providerId}`;
}

/**
 * Validates `IdentityModule.forRoot({ federation })` and resolves the static providers' secret
 * references. Fails closed with `IdentityConfigError('federation', …)`: the message names the
 * option path, never a value.
 *
 * @example
 * const settings = await resolveFederationSettings(options.federation, config, runtime.secrets);
 */
export async function resolveFederationSettings(
  options: IdentityFederationOptions | undefined,
  config: ResolvedIdentityConfig,
  secrets: SecretResolver,
): Promise<FederationSettings> {
  const successPath = options?.successPath ?? '/';
  if (typeof successPath !== 'string' || !/^\/(?![/\\])[\x21-\x7e]{0,1999}$/.test(successPath)) {
    fail(
      'federation',
      'federation.successPath must be a path starting with a single "/" (visible ASCII, ≤ 2000 chars)',
    );
  }
  for (const flag of ['selfService', 'allowMissingIssParameter'] as const) {
    const value = options?.[flag];
    if (value !== undefined && typeof value !== 'boolean') {
      fail('federation', `federation.${flag} must be a boolean, got ${kindOf(value)}`);
    }
  }
  const providers = new Map<string, FederationProvider>();
  for (const [index, declared] of (options?.providers ?? []).entries()) {
    const provider = await resolveStatic(declared, `federation.providers[${index}]`, config, secrets);
    const key = staticProviderKey(provider.organizationId, provider.providerId);
    if (providers.has(key))
      fail('federation', `federation.providers[${index}] repeats an (organizationId, providerId)`);
    providers.set(key, provider);
  }
  return {
    successPath,
    selfService: options?.selfService ?? true,
    allowMissingIssParameter: options?.allowMissingIssParameter ?? false,
    staticProviders: providers,
  };
}

async function resolveStatic(
  declared: StaticFederationProvider,
  path: string,
  config: ResolvedIdentityConfig,
  secrets: SecretResolver,
): Promise<FederationProvider> {
  if (typeof declared !== 'object' || declared === null) fail('federation', `${path} must be an object`);
  const { organizationId, providerId, displayName } = declared;
  if (typeof organizationId !== 'string' || !isUuidV7(organizationId)) {
    fail('federation', `${path}.organizationId must be an organization id (UUIDv7)`);
  }
  if (typeof providerId !== 'string' || !PROVIDER_ID_PATTERN.test(providerId)) {
    fail('federation', `${path}.providerId must match ${PROVIDER_ID_PATTERN.source}`);
  }
  if (typeof displayName !== 'string' || displayName.trim() === '' || [...displayName].length > 200) {
    fail('federation', `${path}.displayName must be 1..200 characters`);
  }
  if (declared.jit !== undefined && typeof declared.jit !== 'boolean')
    fail('federation', `${path}.jit must be a boolean`);
  const base = {
    source: 'static' as const,
    organizationId,
    providerId,
    displayName,
    jit: declared.jit ?? false,
    version: null,
    createdAt: null,
    updatedAt: null,
  };
  if (declared.protocol === 'oidc') {
    const refusal =
      typeof declared.issuer === 'string' ? checkIdpUrl(declared.issuer, config.environment) : 'malformed';
    if (refusal !== null) fail('federation', `${path}.issuer is refused (${refusal})`);
    if (typeof declared.clientId !== 'string' || !VISIBLE_ASCII.test(declared.clientId)) {
      fail('federation', `${path}.clientId must be 1..200 visible ASCII characters`);
    }
    let clientSecret: OidcClientSecret = { kind: 'none' };
    if (declared.clientSecretRef !== undefined) {
      let value: Buffer;
      try {
        value = await secrets.resolve(declared.clientSecretRef);
      } catch {
        fail('federation', `${path}.clientSecretRef could not be resolved`);
      }
      clientSecret = { kind: 'static', value: value.toString('utf8') };
    }
    return {
      ...base,
      protocol: 'oidc',
      issuer: declared.issuer,
      clientId: declared.clientId,
      clientSecret,
      storageKey: federationStorageKey('oidc', organizationId, providerId, declared.issuer),
    };
  }
  if (declared.protocol === 'saml') {
    const { idpEntityId, ssoUrl, idpCertificatesPem, signaturePolicy } = declared;
    if (typeof idpEntityId !== 'string' || idpEntityId.length < 1 || idpEntityId.length > 1024) {
      fail('federation', `${path}.idpEntityId must be 1..1024 characters`);
    }
    const refusal =
      typeof ssoUrl === 'string' ? checkIdpUrl(ssoUrl, config.environment, { noQuery: true }) : 'malformed';
    if (refusal !== null) fail('federation', `${path}.ssoUrl is refused (${refusal})`);
    if (
      !Array.isArray(idpCertificatesPem) ||
      idpCertificatesPem.length < 1 ||
      idpCertificatesPem.length > 4 ||
      !idpCertificatesPem.every((pem) => typeof pem === 'string' && PEM_CERTIFICATE.test(pem))
    ) {
      fail('federation', `${path}.idpCertificatesPem must hold 1..4 PEM certificates`);
    }
    if (!SIGNATURE_POLICIES.has(signaturePolicy)) {
      fail('federation', `${path}.signaturePolicy must be assertion, response, both or assertion_or_response`);
    }
    return {
      ...base,
      protocol: 'saml',
      idpEntityId,
      ssoUrl,
      idpCertificatesPem: [...idpCertificatesPem],
      signaturePolicy,
      storageKey: federationStorageKey('saml', organizationId, providerId, idpEntityId),
    };
  }
  return fail('federation', `${path}.protocol must be "oidc" or "saml"`);
}
