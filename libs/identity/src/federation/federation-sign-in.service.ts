import type { IdentityContext } from '../context/identity-context.js';
import type { RequestFacts } from '../context/identity-call.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { IssuedSession } from '../sessions/session-issuer.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { FederatedSignIn } from '../store/identity-federation.port.js';
import type { FederationProviderLease, FederationTransactionRecord } from '../store/identity-federation.records.js';
import type { StoreResult } from '../store/identity-store.port.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { storeRead } from '../http/route-kit.js';
import { encodeBase64Url } from '../tokens/base64url.codec.js';
import { openFederationSecret, randomToken43, sealFederationSecret, sha256Base64Url } from './federation-keys.js';
import {
  providerUrls,
  type FederationProvider,
  type OidcFederationProvider,
  type SamlFederationProvider,
} from './federation-provider.js';
import type { FederationProtocols, OidcClientSettings, SamlSpSettings } from './federation-protocols.js';
import type { FederationRegistry } from './federation-registry.js';
import { callbackFailure, protocolStep, samlIdp, signInAudits, startFailure } from './federation-sign-in.support.js';

/** A started sign-in: where to send the browser and the state selector for the cookie. */
export interface FederationStart {
  readonly protocol: 'oidc' | 'saml';
  readonly location: string;
  readonly selector: string;
  /** Cookie Max-Age: min(transaction lifetime, 900). */
  readonly maxAgeSeconds: number;
}

/** A completed sign-in: the session to grant. */
export interface FederationSignedIn {
  readonly issued: IssuedSession;
  readonly result: FederatedSignIn;
}

/** The verified protocol answer the shared completion needs. */
interface VerifiedIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly replayDigest: string;
  readonly replayExpiresAt: Date;
}

/**
 * Federated sign-in (identity-http §6): start and the two callbacks. Start takes a provider lease,
 * stores the transaction (state selector digest, sealed PKCE verifier or SAML request id, nonce
 * digest) and answers the IdP URL; a callback consumes the transaction once, revalidates the
 * lease, verifies the ID token or assertion, then links (JIT, or the signed-in initiator) and
 * creates — or rotates the initiator's session into — a federated session in one transaction.
 * Every failure after the route's 400/404 checks is 401 `invalid_credentials`, or 503.
 *
 * @example
 * const started = await signIn.start(call, context, organizationId, providerId);
 */
export class IdentityFederationSignIn {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
    private readonly registry: FederationRegistry,
    private readonly protocols: FederationProtocols,
    private readonly successPath: string,
  ) {}

  /** The absolute URL a completed sign-in is sent to (303). */
  get successUrl(): string {
    return `${this.kernel.config.publicBaseUrl.replace(/\/+$/, '')}${this.successPath}`;
  }

  /** The registered provider of (tenant, providerId) or 404. */
  async provider(organizationId: string, providerId: string): Promise<FederationProvider> {
    const provider = await this.registry.resolve(organizationId, providerId);
    if (provider === null) throw new IdentityError('not_found');
    return provider;
  }

  /**
   * `GET …/start`: a signed-in passkey user (with a recent passkey, else 403 `step_up_required`)
   * links; anyone else signs in. Disabled, unknown or mismatched providers are 404.
   */
  async start(
    call: RequestFacts,
    context: IdentityContext | undefined,
    organizationId: string,
    providerId: string,
    crossSite: boolean,
  ): Promise<FederationStart> {
    const { kernel } = this;
    const provider = await this.provider(organizationId, providerId);
    const initiatorSessionId = crossSite ? null : this.initiator(context);
    const lease = await this.lease(provider, call.at);
    const selector = randomToken43(kernel.runtime.random);
    const selectorDigest = sha256Base64Url(selector);
    const binding = [organizationId, providerId, selectorDigest];
    const seconds = kernel.config.lifetimes.federationTransactionSeconds;
    const transaction = {
      selectorDigest,
      lease,
      initiatorSessionId,
      expiresAt: new Date(call.at.getTime() + seconds * 1000),
      createdAt: call.at,
    };
    let location: string;
    let stored: FederationTransactionRecord;
    if (provider.protocol === 'oidc') {
      const nonce = randomToken43(kernel.runtime.random);
      const codeVerifier = randomToken43(kernel.runtime.random);
      location = await protocolStep(() =>
        this.protocols.oidc.authorizationUrl(this.oidcSettings(provider, null), {
          state: selector,
          nonce,
          codeVerifier,
        }),
      );
      stored = {
        ...transaction,
        pkceVerifierCiphertext: this.seal('pkce_verifier', binding, codeVerifier),
        requestIdCiphertext: null,
        nonceDigest: sha256Base64Url(nonce),
      };
    } else {
      const requestId = `_${encodeBase64Url(kernel.runtime.random.bytes(32)).replace(/[-_]/g, 'x')}`;
      location = await protocolStep(() =>
        this.protocols.saml.buildAuthnRequestUrl(this.spSettings(provider), samlIdp(provider), {
          requestId,
          relayState: selector,
          now: call.at,
        }),
      );
      if (!location.startsWith(`${provider.ssoUrl}?`)) throw new IdentityError('service_unavailable');
      stored = {
        ...transaction,
        pkceVerifierCiphertext: null,
        requestIdCiphertext: this.seal('saml_request_id', binding, requestId),
        nonceDigest: null,
      };
    }
    const created = await kernel.store.createFederationTransaction(stored);
    if (!created.ok) throw startFailure(created.code);
    return { protocol: provider.protocol, location, selector, maxAgeSeconds: Math.min(seconds, 900) };
  }

  /** `GET …/callback` (OIDC): `query` already passed the route's strict parameter check. */
  async completeOidc(
    call: RequestFacts,
    provider: OidcFederationProvider,
    query: URLSearchParams,
    selector: string,
  ): Promise<FederationSignedIn> {
    const transaction = await this.consume(call, provider, selector);
    if (query.has('error')) throw new IdentityError('invalid_credentials');
    query.delete('session_state');
    const binding = [provider.organizationId, provider.providerId, transaction.selectorDigest];
    const codeVerifier = this.open('pkce_verifier', binding, transaction.pkceVerifierCiphertext);
    const secret = this.registry.clientSecret(provider);
    const identity = await protocolStep(() =>
      this.protocols.oidc.completeCallback(this.oidcSettings(provider, secret), {
        query,
        expectedState: selector,
        nonceDigest: transaction.nonceDigest ?? '',
        codeVerifier,
      }),
    );
    if (identity.issuer !== provider.issuer) throw new IdentityError('invalid_credentials');
    const skew = this.kernel.config.lifetimes.federationClockSkewSeconds;
    return this.complete(call, provider, transaction, {
      issuer: identity.issuer,
      subject: identity.subject,
      replayDigest: identity.replayDigest,
      replayExpiresAt: new Date(Math.max(identity.idTokenExpiresAt.getTime() + skew * 1000, call.at.getTime() + 1000)),
    });
  }

  /** `POST …/callback` (SAML HTTP-POST): `samlResponse` and `relayState` passed the form check. */
  async completeSaml(
    call: RequestFacts,
    provider: SamlFederationProvider,
    samlResponse: string,
    selector: string,
  ): Promise<FederationSignedIn> {
    const transaction = await this.consume(call, provider, selector);
    const binding = [provider.organizationId, provider.providerId, transaction.selectorDigest];
    const expectedRequestId = this.open('saml_request_id', binding, transaction.requestIdCiphertext);
    const identity = await protocolStep(() =>
      this.protocols.saml.verifySamlResponse(this.spSettings(provider), samlIdp(provider), {
        samlResponse,
        expectedRequestId,
        now: call.at,
      }),
    );
    if (identity.issuer !== provider.idpEntityId) throw new IdentityError('invalid_credentials');
    const skew = this.kernel.config.lifetimes.federationClockSkewSeconds;
    return this.complete(call, provider, transaction, {
      issuer: identity.issuer,
      subject: identity.subject,
      replayDigest: identity.replayDigest,
      replayExpiresAt: new Date(
        Math.max(identity.assertionExpiresAt.getTime() + skew * 1000, call.at.getTime() + 3_600_000),
      ),
    });
  }

  /** The SP metadata XML of a SAML provider (404 for OIDC). */
  async metadata(organizationId: string, providerId: string): Promise<string> {
    const provider = await this.provider(organizationId, providerId);
    if (provider.protocol !== 'saml') throw new IdentityError('not_found');
    return this.protocols.saml.serviceProviderMetadata(this.spSettings(provider));
  }

  /** OIDC client settings of a provider (the secret only for the token request). */
  oidcSettings(provider: OidcFederationProvider, clientSecret: string | null): OidcClientSettings {
    const urls = providerUrls(this.kernel.config.publicBaseUrl, provider.organizationId, provider.providerId);
    return { issuer: provider.issuer, clientId: provider.clientId, clientSecret, redirectUri: urls.callbackUrl };
  }

  /** Our SAML SP settings for a provider. */
  spSettings(provider: { organizationId: string; providerId: string }): SamlSpSettings {
    const urls = providerUrls(this.kernel.config.publicBaseUrl, provider.organizationId, provider.providerId);
    return { spEntityId: urls.metadataUrl, acsUrl: urls.callbackUrl };
  }

  /**
   * The caller's session, recorded with the transaction: a passkey session links the provider
   * identity to its user (and must hold a recent passkey, else 403 `step_up_required`); any other
   * session (federated, restricted) is rotated into the new federated session when the sign-in
   * reaches the same user. `null` when anonymous. A start the browser marks cross-site never
   * links: a page elsewhere cannot attach an identity to the signed-in user.
   */
  private initiator(context: IdentityContext | undefined): string | null {
    const session = context?.session;
    if (context === undefined || session === undefined || context.principal.kind !== 'user') return null;
    if (session.authenticationMethod === 'passkey') this.sessions.requireStep(context);
    return session.id;
  }

  /** The provider of a callback: unknown, or disabled right now, is 404 (identity-http §6). */
  async callbackProvider(organizationId: string, providerId: string): Promise<FederationProvider> {
    const provider = await this.provider(organizationId, providerId);
    const control = await storeRead(() => this.kernel.store.findFederationProviderControl(organizationId, providerId));
    if (control?.state === 'disabled') throw new IdentityError('not_found');
    return provider;
  }

  private async lease(provider: FederationProvider, at: Date): Promise<FederationProviderLease> {
    const result = await this.kernel.store.acquireFederationProviderLease({
      organizationId: provider.organizationId,
      providerId: provider.providerId,
      kind: provider.protocol,
      storageKey: provider.storageKey,
      at,
    });
    if (!result.ok) throw startFailure(result.code);
    return result.value;
  }

  /** Consumes the transaction once and revalidates its lease against the provider now. */
  private async consume(
    call: RequestFacts,
    provider: FederationProvider,
    selector: string,
  ): Promise<FederationTransactionRecord> {
    const consumed = await this.kernel.store.consumeFederationTransaction({
      selectorDigest: sha256Base64Url(selector),
      organizationId: provider.organizationId,
      providerId: provider.providerId,
      at: call.at,
    });
    if (!consumed.ok) throw callbackFailure(consumed.code);
    const { lease } = consumed.value;
    if (lease.storageKey !== provider.storageKey || lease.kind !== provider.protocol) {
      throw new IdentityError('invalid_credentials');
    }
    const valid = await this.kernel.store.validateFederationProviderLease(lease);
    if (!valid.ok) throw callbackFailure(valid.code);
    return consumed.value;
  }

  /** The one store transaction of a verified callback: receipt, link (or JIT), session, audits. */
  private async complete(
    call: RequestFacts,
    provider: FederationProvider,
    transaction: FederationTransactionRecord,
    identity: VerifiedIdentity,
  ): Promise<FederationSignedIn> {
    const { kernel } = this;
    const { clock, random } = kernel.runtime;
    const organizationId = provider.organizationId;
    let issued: IssuedSession | undefined;
    const jitUserId = generateUuidV7(clock, random);
    const initiator =
      transaction.initiatorSessionId === null
        ? null
        : await storeRead(() => kernel.store.findSession(transaction.initiatorSessionId as string));
    // Linking is for the passkey session that started the sign-in; it must still be active.
    const linking = initiator !== null && initiator.authenticationMethod === 'passkey' ? initiator : null;
    if (
      transaction.initiatorSessionId !== null &&
      initiator?.authenticationMethod === 'passkey' &&
      initiator.state !== 'active'
    ) {
      throw new IdentityError('invalid_credentials');
    }
    const result: StoreResult<FederatedSignIn> = await kernel.store.linkExternalIdentity({
      lease: transaction.lease,
      assertion: {
        subject: identity.subject,
        replayDigest: identity.replayDigest,
        replayExpiresAt: identity.replayExpiresAt,
      },
      mode:
        linking === null
          ? {
              kind: 'sign_in',
              replacesSessionId: initiator?.id ?? null,
              jit: provider.jit
                ? {
                    user: { id: jitUserId, primaryEmail: null, displayName: `${provider.displayName} user` },
                    membershipId: generateUuidV7(clock, random),
                  }
                : null,
            }
          : { kind: 'link', sessionId: linking.id, expectedUserId: linking.userId },
      externalIdentityId: generateUuidV7(clock, random),
      at: call.at,
      sessionFor: (user, link, predecessor) => {
        issued = this.sessions.mint({
          userId: user.id,
          assurance: 'session',
          authenticationMethod: provider.protocol,
          authenticatedAt: call.at,
          lifetimes: {
            idleSeconds: kernel.config.lifetimes.sessionIdleSeconds,
            absoluteSeconds: kernel.config.lifetimes.sessionAbsoluteSeconds,
          },
          federation: {
            organizationId,
            providerKey: transaction.lease.storageKey,
            providerSessionEpoch: transaction.lease.sessionEpoch,
            externalIdentityId: link.id,
          },
          ...(predecessor === null
            ? {}
            : {
                predecessor: {
                  familyId: predecessor.familyId,
                  rotationCounter: predecessor.rotationCounter,
                  absoluteExpiresAt: predecessor.absoluteExpiresAt,
                },
              }),
        });
        return issued.session;
      },
      audits: (outcome) => signInAudits(this.kernel, call, provider, outcome),
    });
    if (!result.ok || issued === undefined) throw callbackFailure(result.ok ? 'internal' : result.code);
    return { issued, result: result.value };
  }

  private seal(purpose: 'pkce_verifier' | 'saml_request_id', binding: string[], value: string): Buffer {
    return sealFederationSecret(this.kernel.keys.encryptionKey, this.kernel.runtime.random, purpose, binding, value);
  }

  private open(purpose: 'pkce_verifier' | 'saml_request_id', binding: string[], sealed: Buffer | null): string {
    const opened =
      sealed === null ? undefined : openFederationSecret(this.kernel.keys.encryptionKey, purpose, binding, sealed);
    if (opened === undefined) throw new IdentityError('invalid_credentials');
    return opened;
  }
}
