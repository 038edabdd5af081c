/** Federation protocols (identity-http §6). */
export type FederationProtocol = 'oidc' | 'saml';

/** Provider control states (identity-model §5.9). */
export type FederationProviderState = 'enabled' | 'disabled';

/** Which signatures a SAML registration requires (identity-http §6). */
export type SamlSignaturePolicy = 'assertion' | 'response' | 'both' | 'assertion_or_response';

/**
 * The kill switch and session epoch of one (organization, providerId): one row of
 * `federation_provider_controls` (identity-model §5.9). `kind` and `storageKey` never change.
 */
export interface FederationProviderControlRecord {
  readonly organizationId: string;
  readonly providerId: string;
  readonly kind: FederationProtocol;
  /** `oidc.`/`saml.` + 43 base64url chars (identity-http §6). */
  readonly storageKey: string;
  readonly state: FederationProviderState;
  /** + 1 on every disable; a federated session carrying another epoch is invalid. */
  readonly sessionEpoch: number;
  readonly disabledAt: Date | null;
  readonly disabledReason: string | null;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * A provider lease (identity-model §5.9): it must equal the current enabled control at start,
 * callback, link, replay receipt, JIT and session creation/rotation.
 */
export interface FederationProviderLease {
  readonly organizationId: string;
  readonly kind: FederationProtocol;
  readonly providerId: string;
  readonly storageKey: string;
  readonly sessionEpoch: number;
  readonly version: number;
}

/**
 * An organization-managed provider registration (issue 14: self-serve setup): one row of
 * `federation_provider_registrations`, PK (organizationId, providerId). The OIDC client secret is
 * stored only as AES-256-GCM ciphertext under the configuration's encryption key.
 */
export interface FederationRegistrationRecord {
  readonly organizationId: string;
  readonly providerId: string;
  readonly protocol: FederationProtocol;
  readonly displayName: string;
  /** JIT provisioning (identity-http §6); off unless set. */
  readonly jit: boolean;
  /** Immutable; equal to the control's storage key. */
  readonly storageKey: string;
  /** OIDC: the exact issuer; `null` for SAML. */
  readonly issuer: string | null;
  /** OIDC: the client id; `null` for SAML. */
  readonly clientId: string | null;
  /** OIDC: the sealed client secret, `null` for a public client (PKCE only) and SAML. */
  readonly clientSecretCiphertext: Buffer | null;
  /** SAML: the IdP entity id; `null` for OIDC. */
  readonly idpEntityId: string | null;
  /** SAML: the IdP's HTTP-Redirect SSO endpoint; `null` for OIDC. */
  readonly ssoUrl: string | null;
  /** SAML: trusted IdP signing certificates (PEM), ≥ 1; empty for OIDC. */
  readonly idpCertificatesPem: readonly string[];
  /** SAML: the signature policy; `null` for OIDC. */
  readonly signaturePolicy: SamlSignaturePolicy | null;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A registration to insert (version 0). */
export type NewFederationRegistration = Omit<FederationRegistrationRecord, 'version' | 'createdAt' | 'updatedAt'>;

/** The mutable fields of a registration (PATCH); protocol, issuer / IdP entity id and storage key never change. */
export interface FederationRegistrationChange {
  readonly displayName?: string;
  readonly jit?: boolean;
  readonly clientId?: string;
  /** `null` removes the secret (public client). */
  readonly clientSecretCiphertext?: Buffer | null;
  readonly ssoUrl?: string;
  readonly idpCertificatesPem?: readonly string[];
  readonly signaturePolicy?: SamlSignaturePolicy;
}

/** A federation link (identity-http §6): keyed by (provider storage key, subject), never by email. */
export interface ExternalIdentityRecord {
  readonly id: string;
  readonly userId: string;
  readonly organizationId: string;
  /** The provider's storage key. */
  readonly provider: string;
  readonly subject: string;
  readonly state: 'active' | 'suspended' | 'unlinked';
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * Server-side state of one OIDC/SAML sign-in between start and callback (identity-model §9.2),
 * keyed by the digest of the state cookie's 43-char selector and deleted exactly once.
 */
export interface FederationTransactionRecord {
  /** Unpadded base64url SHA-256 of the selector (43 chars). */
  readonly selectorDigest: string;
  readonly lease: FederationProviderLease;
  /** OIDC: the sealed PKCE verifier. */
  readonly pkceVerifierCiphertext: Buffer | null;
  /** SAML: the sealed AuthnRequest id (the expected `InResponseTo`). */
  readonly requestIdCiphertext: Buffer | null;
  /** OIDC: unpadded base64url SHA-256 of the nonce. */
  readonly nonceDigest: string | null;
  /**
   * The signed-in session that started federation to link its user (identity-http §6: the
   * callback rotates it); `null` for a sign-in.
   */
  readonly initiatorSessionId: string | null;
  readonly expiresAt: Date;
  readonly createdAt: Date;
}

/** What a verified ID token / assertion proves, handed to {@link completeFederatedSignIn}. */
export interface FederatedAssertion {
  /** The `sub` / NameID (1..1024 chars). */
  readonly subject: string;
  /** Unpadded base64url SHA-256 of the replay key (ID token `jti` or token hash / assertion ID). */
  readonly replayDigest: string;
  /** When the replay receipt may be purged (identity-model §3). */
  readonly replayExpiresAt: Date;
}
