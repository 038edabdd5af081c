import { randomBytes } from 'node:crypto';
import type {
  AuditEventInput,
  ExternalIdentityRecord,
  FederatedAssertion,
  FederatedSignInMode,
  FederationProtocol,
  FederationProviderLease,
  FederationTransactionRecord,
  IdentityStore,
  NewFederationRegistration,
  NewSession,
  UserRecord,
} from '@tessera/identity';
import { newTestUser, testAuditEvent, testBase64Url, testDigest, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

type LinkInput = Parameters<IdentityStore['linkExternalIdentity']>[0];

/**
 * A storage key of `kind` (`oidc.`/`saml.` + 43 base64url chars).
 *
 * @example
 * const storageKey = testStorageKey('saml');
 */
export function testStorageKey(kind: FederationProtocol = 'oidc'): string {
  return `${kind}.${testBase64Url()}`;
}

/** A provider id matching `^[a-z0-9][a-z0-9_-]{0,62}$`, unique per call. */
export function testProviderId(): string {
  return `idp-${randomBytes(5).toString('hex')}`;
}

/** A PEM-shaped certificate text (spaces, dashes and newlines, as a real one has). */
export const TEST_CERTIFICATE_PEM = `-----BEGIN CERTIFICATE-----\n${testBase64Url(48)}\n-----END CERTIFICATE-----`;

/**
 * Builders of the federation conformance cases: tenants with an active provider lease, verified
 * assertions, federated sessions, `linkExternalIdentity` inputs, transactions and registrations.
 */
export class FederationFixtures {
  constructor(private readonly world: ConformanceWorld) {}

  private get store(): IdentityStore {
    return this.world.store;
  }

  /** A fresh active organization with a provider whose first lease was just acquired (enabled, v0, epoch 0). */
  async provider(kind: FederationProtocol = 'oidc'): Promise<FederationProviderLease> {
    const at = this.world.tick();
    const organizationId = await this.world.rows.organization({ at });
    return unwrap(
      await this.store.acquireFederationProviderLease({
        organizationId,
        providerId: testProviderId(),
        kind,
        storageKey: testStorageKey(kind),
        at,
      }),
    );
  }

  /** An active user with an active membership (viewer unless told) in `organizationId`. */
  async member(organizationId: string, over: { email?: string | null } = {}): Promise<string> {
    const at = this.world.clock.now();
    const userId = await this.world.rows.user({ at, email: over.email });
    await this.world.rows.membership(organizationId, userId, { at });
    return userId;
  }

  /** A verified assertion of `subject` (fresh replay digest, receipt kept 1 h). */
  assertion(subject = `subject-${testBase64Url(9)}`): FederatedAssertion {
    return {
      subject,
      replayDigest: testBase64Url(),
      replayExpiresAt: new Date(this.world.clock.now().getTime() + 3_600_000),
    };
  }

  /** The federated session the callback issues for `user` through `link` under `lease`. */
  sessionFor(lease: FederationProviderLease): (user: UserRecord, link: ExternalIdentityRecord) => NewSession {
    return (user, link) => {
      const at = this.world.clock.now();
      const id = testUuidV7(at);
      return {
        id,
        familyId: id,
        userId: user.id,
        tokenDigest: testDigest(),
        csrfDigest: testDigest(),
        assurance: 'session',
        authenticationMethod: lease.kind,
        label: null,
        platform: null,
        rotationCounter: 0,
        authenticatedAt: at,
        idleExpiresAt: new Date(at.getTime() + 1_800_000),
        absoluteExpiresAt: new Date(at.getTime() + 43_200_000),
        federation: {
          organizationId: lease.organizationId,
          providerKey: lease.storageKey,
          providerSessionEpoch: lease.sessionEpoch,
          externalIdentityId: link.id,
        },
      };
    };
  }

  /** A JIT sign-in mode: a new user (with an email the store must drop) and its membership id. */
  jit(email: string | null = null): FederatedSignInMode {
    const at = this.world.clock.now();
    const user = newTestUser({ id: testUuidV7(at), displayName: 'Federated User' });
    return {
      kind: 'sign_in',
      jit: { user: email === null ? user : { ...user, primaryEmail: email }, membershipId: testUuidV7(at) },
    };
  }

  /**
   * A `linkExternalIdentity` input; `audited` collects the events its `audits` callback returned,
   * so a case can count what was stored.
   */
  signIn(
    lease: FederationProviderLease,
    mode: FederatedSignInMode,
    over: { assertion?: FederatedAssertion } = {},
  ): LinkInput & { audited: AuditEventInput[] } {
    const at = this.world.clock.now();
    const audited: AuditEventInput[] = [];
    return {
      lease,
      assertion: over.assertion ?? this.assertion(),
      mode,
      externalIdentityId: testUuidV7(at),
      at,
      sessionFor: this.sessionFor(lease),
      audits: (outcome) => {
        const event = testAuditEvent({
          action: mode.kind === 'link' ? 'session.rotated' : 'session.created',
          at,
          organizationId: lease.organizationId,
          actor: { type: 'user', userId: outcome.user.id },
          target: { type: 'session', id: outcome.session.id },
        });
        audited.push(event);
        return [event];
      },
      audited,
    };
  }

  /** An OIDC transaction under `lease`, valid 5 minutes from now. */
  transaction(
    lease: FederationProviderLease,
    over: Partial<FederationTransactionRecord> = {},
  ): FederationTransactionRecord {
    const at = this.world.clock.now();
    const oidc = lease.kind === 'oidc';
    return {
      selectorDigest: testBase64Url(),
      lease,
      pkceVerifierCiphertext: oidc ? randomBytes(60) : null,
      requestIdCiphertext: oidc ? null : randomBytes(48),
      nonceDigest: oidc ? testBase64Url() : null,
      initiatorSessionId: null,
      expiresAt: new Date(at.getTime() + 300_000),
      createdAt: at,
      ...over,
    };
  }

  /** Disables the provider of `lease` (CAS at its version) and returns the new control. */
  async disable(lease: FederationProviderLease, expectedVersion = lease.version) {
    return this.store.compareAndSetFederationProviderState({
      ...this.controlKey(lease),
      expectedVersion,
      target: 'disabled',
      reason: 'incident',
      at: this.world.tick(),
      audit: (control) => this.controlAudit('federation_provider.disabled', control.storageKey),
    });
  }

  /** Enables the provider of `lease` at `expectedVersion`. */
  async enable(lease: FederationProviderLease, expectedVersion: number) {
    return this.store.compareAndSetFederationProviderState({
      ...this.controlKey(lease),
      expectedVersion,
      target: 'enabled',
      reason: null,
      at: this.world.tick(),
      audit: (control) => this.controlAudit('federation_provider.enabled', control.storageKey),
    });
  }

  /** The (organization, provider, kind, storage key) of a lease, as the control commands take them. */
  controlKey(lease: FederationProviderLease) {
    const { organizationId, providerId, kind, storageKey } = lease;
    return { organizationId, providerId, kind, storageKey };
  }

  /** A `system` audit of a control change targeting the storage key. */
  controlAudit(action: string, storageKey: string): AuditEventInput {
    return testAuditEvent({
      action,
      at: this.world.clock.now(),
      target: { type: 'federation_provider', id: storageKey },
    });
  }

  /** A new OIDC (default) or SAML registration of `organizationId`. */
  registration(
    organizationId: string,
    protocol: FederationProtocol = 'oidc',
    over: Partial<NewFederationRegistration> = {},
  ): NewFederationRegistration {
    const common = {
      organizationId,
      providerId: testProviderId(),
      protocol,
      displayName: 'Example IdP',
      jit: false,
      storageKey: testStorageKey(protocol),
    };
    const columns =
      protocol === 'oidc'
        ? {
            issuer: 'https://idp.example.test',
            clientId: 'tessera',
            clientSecretCiphertext: randomBytes(44),
            idpEntityId: null,
            ssoUrl: null,
            idpCertificatesPem: [],
            signaturePolicy: null,
          }
        : {
            issuer: null,
            clientId: null,
            clientSecretCiphertext: null,
            idpEntityId: 'https://idp.example.test/metadata',
            ssoUrl: 'https://idp.example.test/sso',
            idpCertificatesPem: [TEST_CERTIFICATE_PEM],
            signaturePolicy: 'both' as const,
          };
    return { ...common, ...columns, ...over };
  }
}
