import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { organizationFailure, requireOrganizationScope } from '../organizations/organization-scope.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type {
  FederationProviderControlRecord,
  FederationProviderState,
  FederationRegistrationChange,
  NewFederationRegistration,
} from '../store/identity-federation.records.js';
import type { AuditEventInput } from '../store/identity-records.js';
import { federationStorageKey, sealFederationSecret } from './federation-keys.js';
import { checkIdpUrl, providerUrls, type FederationProvider } from './federation-provider.js';
import type { ProviderBody, ProviderChangeBody } from './federation-provider.request.js';
import { FederationProtocolError } from './federation-protocol.error.js';
import type { FederationProtocols } from './federation-protocols.js';
import type { FederationRegistry, ListedFederationProvider } from './federation-registry.js';

const MANAGE = 'external_identity.manage';
const CAS_ATTEMPTS = 8;

/**
 * Provider setup by the organization (issue 14, Deliver 4): owners and admins with
 * `external_identity.manage` list and read providers; creating, changing, deleting, disabling and
 * enabling also need a recent passkey. OIDC discovery is fetched and validated at creation; a
 * client secret is sealed under the encryption key and never returned. Providers declared in code
 * are listed but read-only (409), except the kill switch (disable/enable). Every change is audited
 * in the same transaction.
 *
 * @example
 * const created = await providers.create(call, organizationId, body);
 */
export class IdentityFederationProviders {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
    private readonly registry: FederationRegistry,
    private readonly protocols: FederationProtocols,
  ) {}

  list(context: IdentityContext, organizationId: string): Promise<ListedFederationProvider[]> {
    requireOrganizationScope(context, organizationId, MANAGE);
    return this.registry.list(organizationId);
  }

  async get(context: IdentityContext, organizationId: string, providerId: string): Promise<ListedFederationProvider> {
    requireOrganizationScope(context, organizationId, MANAGE);
    return this.described(organizationId, providerId);
  }

  /** The enabled providers of an organization for its public sign-in page (anyone). */
  async signInOptions(organizationId: string): Promise<ListedFederationProvider[]> {
    const organization = await this.kernel.store.findOrganization(organizationId);
    if (organization === null || organization.state !== 'active') throw new IdentityError('not_found');
    return (await this.registry.list(organizationId)).filter((listed) => listed.state === 'enabled');
  }

  async create(call: IdentityCall, organizationId: string, body: ProviderBody): Promise<ListedFederationProvider> {
    const { kernel } = this;
    requireOrganizationScope(call.context, organizationId, MANAGE);
    this.sessions.requireStep(call.context);
    if (this.registry.isStatic(organizationId, body.providerId)) throw new IdentityError('conflict');
    const registration = await this.registration(organizationId, body);
    const result = await kernel.store.createFederationRegistration({
      registration,
      at: call.at,
      audits: (entry) => [
        this.audit(call, organizationId, 'federation_provider.created', entry.registration.storageKey),
        // Re-registering a deleted provider enables its (disabled) control again.
        ...(entry.control !== null && entry.control.version > 0
          ? [this.audit(call, organizationId, 'federation_provider.enabled', entry.registration.storageKey)]
          : []),
      ],
    });
    if (!result.ok) throw organizationFailure(result.code);
    return this.described(organizationId, body.providerId);
  }

  async update(
    call: IdentityCall,
    organizationId: string,
    providerId: string,
    body: ProviderChangeBody,
  ): Promise<ListedFederationProvider> {
    const { kernel } = this;
    requireOrganizationScope(call.context, organizationId, MANAGE);
    const provider = await this.owned(organizationId, providerId);
    this.sessions.requireStep(call.context);
    const change = await this.change(provider, body);
    const result = await kernel.store.updateFederationRegistration({
      organizationId,
      providerId,
      expectedVersion: provider.version ?? 0,
      change,
      at: call.at,
      audit: (entry) => this.audit(call, organizationId, 'federation_provider.changed', entry.registration.storageKey),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return this.described(organizationId, providerId);
  }

  async remove(call: IdentityCall, organizationId: string, providerId: string): Promise<void> {
    requireOrganizationScope(call.context, organizationId, MANAGE);
    const provider = await this.owned(organizationId, providerId);
    this.sessions.requireStep(call.context);
    const result = await this.kernel.store.deleteFederationRegistration({
      organizationId,
      providerId,
      expectedVersion: provider.version ?? 0,
      reason: 'provider_deleted',
      at: call.at,
      audits: (entry) => [
        // Deleting disables the control first (epoch + 1) when it was enabled.
        ...(entry.control?.state === 'disabled' && entry.control.updatedAt.getTime() === call.at.getTime()
          ? [this.audit(call, organizationId, 'federation_provider.disabled', entry.registration.storageKey)]
          : []),
        this.audit(call, organizationId, 'federation_provider.deleted', entry.registration.storageKey),
      ],
    });
    if (!result.ok) throw organizationFailure(result.code);
  }

  /**
   * The kill switch (identity-model §5.9): disable advances the provider's session epoch (every
   * session through it ends at once, and stays ended after a re-enable); enable keeps the epoch.
   * Idempotent in the target state; the CAS is retried up to 8 times.
   */
  async setState(
    call: IdentityCall,
    organizationId: string,
    providerId: string,
    target: FederationProviderState,
  ): Promise<ListedFederationProvider> {
    const { kernel } = this;
    requireOrganizationScope(call.context, organizationId, MANAGE);
    const provider = await this.registry.resolve(organizationId, providerId);
    if (provider === null) throw new IdentityError('not_found');
    this.sessions.requireStep(call.context);
    if (target === 'enabled' && provider.protocol === 'saml' && provider.idpCertificatesPem.length === 0) {
      throw new IdentityError('request_invalid');
    }
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const control = await kernel.store.findFederationProviderControl(organizationId, providerId);
      if (control?.state === target) return this.described(organizationId, providerId);
      const result = await kernel.store.compareAndSetFederationProviderState({
        organizationId,
        providerId,
        kind: provider.protocol,
        storageKey: provider.storageKey,
        expectedVersion: control?.version ?? null,
        target,
        reason: target === 'disabled' ? 'disabled_by_organization' : null,
        at: call.at,
        audit: (changed: FederationProviderControlRecord) =>
          this.audit(call, organizationId, `federation_provider.${target}`, changed.storageKey),
      });
      if (result.ok) return this.described(organizationId, providerId);
      if (
        result.code !== 'version_conflict' &&
        result.code !== 'invalid_transition' &&
        result.code !== 'unique_constraint'
      ) {
        throw organizationFailure(result.code);
      }
    }
    throw new IdentityError('conflict');
  }

  private async described(organizationId: string, providerId: string): Promise<ListedFederationProvider> {
    const listed = await this.registry.describe(organizationId, providerId);
    if (listed === null) throw new IdentityError('not_found');
    return listed;
  }

  /** An organization-registered provider (404 when unknown, 409 when declared in code). */
  private async owned(organizationId: string, providerId: string): Promise<FederationProvider> {
    const provider = await this.registry.resolve(organizationId, providerId);
    if (provider === null) throw new IdentityError('not_found');
    if (provider.source === 'static') throw new IdentityError('conflict');
    return provider;
  }

  /** Validates a create body against the environment and the IdP, and builds the row. */
  private async registration(organizationId: string, body: ProviderBody): Promise<NewFederationRegistration> {
    const { kernel } = this;
    const { providerId } = body;
    const base = { organizationId, providerId, protocol: body.protocol, displayName: body.displayName, jit: body.jit };
    if (body.protocol === 'oidc') {
      if (checkIdpUrl(body.issuer, kernel.config.environment) !== null) throw new IdentityError('request_invalid');
      const redirectUri = providerUrls(kernel.config.publicBaseUrl, organizationId, providerId).callbackUrl;
      await validated(() =>
        this.protocols.oidc.discover({
          issuer: body.issuer,
          clientId: body.clientId,
          clientSecret: body.clientSecret ?? null,
          redirectUri,
        }),
      );
      return {
        ...base,
        storageKey: federationStorageKey('oidc', organizationId, providerId, body.issuer),
        issuer: body.issuer,
        clientId: body.clientId,
        clientSecretCiphertext:
          body.clientSecret === undefined ? null : this.sealSecret(organizationId, providerId, body.clientSecret),
        idpEntityId: null,
        ssoUrl: null,
        idpCertificatesPem: [],
        signaturePolicy: null,
      };
    }
    const idp =
      body.idp.kind === 'metadata'
        ? await validated(async () => this.protocols.saml.parseIdpMetadata((body.idp as { xml: string }).xml))
        : body.idp;
    if (checkIdpUrl(idp.ssoUrl, kernel.config.environment, { noQuery: true }) !== null) {
      throw new IdentityError('request_invalid');
    }
    if (idp.idpCertificatesPem.length === 0) throw new IdentityError('request_invalid');
    return {
      ...base,
      storageKey: federationStorageKey('saml', organizationId, providerId, idp.idpEntityId),
      issuer: null,
      clientId: null,
      clientSecretCiphertext: null,
      idpEntityId: idp.idpEntityId,
      ssoUrl: idp.ssoUrl,
      idpCertificatesPem: [...idp.idpCertificatesPem],
      signaturePolicy: body.signaturePolicy,
    };
  }

  /** Validates a PATCH against the provider's protocol (fields of the other protocol are 400). */
  private async change(provider: FederationProvider, body: ProviderChangeBody): Promise<FederationRegistrationChange> {
    const { kernel } = this;
    const oidcOnly = body.clientId !== undefined || body.clientSecret !== undefined;
    const samlOnly =
      body.idpMetadataXml !== undefined ||
      body.ssoUrl !== undefined ||
      body.idpCertificatesPem !== undefined ||
      body.signaturePolicy !== undefined;
    if ((provider.protocol === 'oidc' && samlOnly) || (provider.protocol === 'saml' && oidcOnly)) {
      throw new IdentityError('request_invalid');
    }
    const common = {
      ...(body.displayName === undefined ? {} : { displayName: body.displayName }),
      ...(body.jit === undefined ? {} : { jit: body.jit }),
    };
    if (provider.protocol === 'oidc') {
      return {
        ...common,
        ...(body.clientId === undefined ? {} : { clientId: body.clientId }),
        ...(body.clientSecret === undefined
          ? {}
          : {
              clientSecretCiphertext:
                body.clientSecret === null
                  ? null
                  : this.sealSecret(provider.organizationId, provider.providerId, body.clientSecret),
            }),
      };
    }
    let ssoUrl = body.ssoUrl;
    let certificates = body.idpCertificatesPem;
    if (body.idpMetadataXml !== undefined) {
      const xml = body.idpMetadataXml;
      const idp = await validated(async () => this.protocols.saml.parseIdpMetadata(xml));
      if (idp.idpEntityId !== provider.idpEntityId) throw new IdentityError('request_invalid');
      ssoUrl = idp.ssoUrl;
      certificates = idp.idpCertificatesPem;
    }
    if (ssoUrl !== undefined && checkIdpUrl(ssoUrl, kernel.config.environment, { noQuery: true }) !== null) {
      throw new IdentityError('request_invalid');
    }
    if (certificates !== undefined && certificates.length === 0) throw new IdentityError('request_invalid');
    return {
      ...common,
      ...(ssoUrl === undefined ? {} : { ssoUrl }),
      ...(certificates === undefined ? {} : { idpCertificatesPem: certificates }),
      ...(body.signaturePolicy === undefined ? {} : { signaturePolicy: body.signaturePolicy }),
    };
  }

  private sealSecret(organizationId: string, providerId: string, secret: string): Buffer {
    const { keys, runtime } = this.kernel;
    return sealFederationSecret(
      keys.encryptionKey,
      runtime.random,
      'client_secret',
      [organizationId, providerId],
      secret,
    );
  }

  private audit(call: IdentityCall, organizationId: string, action: string, storageKey: string): AuditEventInput {
    return this.kernel.audit.event(call.exchange, call.at, {
      actor: { type: 'user', userId: call.context.principal.id },
      organizationId,
      action,
      target: { type: 'federation_provider', id: storageKey },
    });
  }
}

/** Runs an IdP validation step: unusable configuration is 400, an unreachable IdP 503. */
async function validated<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof FederationProtocolError) {
      throw new IdentityError(error.failure === 'unavailable' ? 'service_unavailable' : 'request_invalid', {
        cause: error,
      });
    }
    throw new IdentityError('service_unavailable', { cause: error });
  }
}
