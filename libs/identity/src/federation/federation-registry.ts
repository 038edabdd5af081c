import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import type { FederationRegistrationRecord } from '../store/identity-federation.records.js';
import type { FederationProviderEntry } from '../store/identity-federation.port.js';
import { openFederationSecret } from './federation-keys.js';
import { PROVIDER_ID_PATTERN, type FederationProvider, type OidcFederationProvider } from './federation-provider.js';
import { staticProviderKey, type FederationSettings } from './federation-settings.js';

/**
 * A provider as the management routes list it: the resolved provider, its control and how many
 * identities are linked through it.
 */
export interface ListedFederationProvider {
  readonly provider: FederationProvider;
  readonly state: 'enabled' | 'disabled';
  readonly linkedIdentities: number;
}

/**
 * The provider a stored registration describes.
 *
 * @example
 * const provider = registrationProvider(entry.registration);
 */
export function registrationProvider(registration: FederationRegistrationRecord): FederationProvider {
  const base = {
    source: 'organization' as const,
    organizationId: registration.organizationId,
    providerId: registration.providerId,
    displayName: registration.displayName,
    jit: registration.jit,
    storageKey: registration.storageKey,
    version: registration.version,
    createdAt: registration.createdAt,
    updatedAt: registration.updatedAt,
  };
  if (registration.protocol === 'oidc') {
    return {
      ...base,
      protocol: 'oidc',
      issuer: registration.issuer ?? '',
      clientId: registration.clientId ?? '',
      clientSecret:
        registration.clientSecretCiphertext === null
          ? { kind: 'none' }
          : { kind: 'sealed', ciphertext: registration.clientSecretCiphertext },
    };
  }
  return {
    ...base,
    protocol: 'saml',
    idpEntityId: registration.idpEntityId ?? '',
    ssoUrl: registration.ssoUrl ?? '',
    idpCertificatesPem: registration.idpCertificatesPem,
    signaturePolicy: registration.signaturePolicy ?? 'both',
  };
}

/**
 * Registry resolution (identity-http §6): a provider of (tenant, providerId) is declared in code
 * or registered by the organization; code wins (an organization cannot shadow it). Store errors
 * are 503.
 *
 * @example
 * const provider = await registry.resolve(organizationId, providerId); // null → 404
 */
export class FederationRegistry {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly settings: FederationSettings,
  ) {}

  /** The provider, or `null` when neither code nor the organization declares it. */
  async resolve(organizationId: string, providerId: string): Promise<FederationProvider | null> {
    if (!PROVIDER_ID_PATTERN.test(providerId)) return null;
    const declared = this.settings.staticProviders.get(staticProviderKey(organizationId, providerId));
    if (declared !== undefined) return declared;
    const registration = await storeRead(() =>
      this.kernel.store.findFederationRegistration(organizationId, providerId),
    );
    return registration === null ? null : registrationProvider(registration);
  }

  /** One provider with its state and linked count, or `null`. */
  async describe(organizationId: string, providerId: string): Promise<ListedFederationProvider | null> {
    if (!PROVIDER_ID_PATTERN.test(providerId)) return null;
    const declared = this.settings.staticProviders.get(staticProviderKey(organizationId, providerId));
    if (declared !== undefined) return this.describeStatic(declared);
    const entry = await storeRead(() => this.kernel.store.findFederationProvider(organizationId, providerId));
    return entry === null ? null : listed(entry);
  }

  /** Every provider of the organization (code first, then registrations), sorted by provider id. */
  async list(organizationId: string): Promise<ListedFederationProvider[]> {
    const declared = [...this.settings.staticProviders.values()].filter((p) => p.organizationId === organizationId);
    const statics = await Promise.all(declared.map((provider) => this.describeStatic(provider)));
    const entries = await storeRead(() => this.kernel.store.listFederationProviders(organizationId));
    const shadowed = new Set(declared.map((p) => p.providerId));
    const registered = entries.filter((entry) => !shadowed.has(entry.registration.providerId)).map(listed);
    return [...statics, ...registered].sort((a, b) => (a.provider.providerId < b.provider.providerId ? -1 : 1));
  }

  /** `true` when code declares (tenant, providerId): the routes cannot change it. */
  isStatic(organizationId: string, providerId: string): boolean {
    return this.settings.staticProviders.has(staticProviderKey(organizationId, providerId));
  }

  /**
   * The OIDC client secret in clear, for the token request only; a sealed secret that no longer
   * opens (another encryption key) is 503, never a silent public client.
   */
  clientSecret(provider: OidcFederationProvider): string | null {
    const secret = provider.clientSecret;
    if (secret.kind === 'none') return null;
    if (secret.kind === 'static') return secret.value;
    const opened = openFederationSecret(
      this.kernel.keys.encryptionKey,
      'client_secret',
      [provider.organizationId, provider.providerId],
      secret.ciphertext,
    );
    if (opened === undefined) throw new IdentityError('service_unavailable');
    return opened;
  }

  private async describeStatic(provider: FederationProvider): Promise<ListedFederationProvider> {
    const [control, linkedIdentities] = await storeRead(() =>
      Promise.all([
        this.kernel.store.findFederationProviderControl(provider.organizationId, provider.providerId),
        this.kernel.store.countExternalIdentities(provider.storageKey),
      ]),
    );
    return { provider, state: control?.state ?? 'enabled', linkedIdentities };
  }
}

function listed(entry: FederationProviderEntry): ListedFederationProvider {
  return {
    provider: registrationProvider(entry.registration),
    state: entry.control?.state ?? 'disabled',
    linkedIdentities: entry.linkedIdentities,
  };
}
