/**
 * Records the `IdentityStore` port reads and writes (identity-model §1, §5, §9.5). Field names
 * are camelCase mirrors of the `tessera_identity` columns; instants are `Date`s.
 */

/** `user` state (identity-model §5.11). */
export type UserState = 'pending' | 'active' | 'suspended' | 'deactivated';
/** Session state (identity-model §5.1); `expired` is never written. */
export type SessionState = 'active' | 'rotated' | 'revoked' | 'expired';
/** Assurance levels of identity-model §1. */
export type Assurance = 'recovery' | 'session' | 'passkey' | 'step_up';
/** How a session was authenticated (identity-model §1). */
export type AuthenticationMethod =
  'passkey' | 'recovery_code' | 'administrative_recovery' | 'bootstrap' | 'invitation' | 'oidc' | 'saml';
/** Organization roles with rank owner 3 … viewer 0 (identity-model §6.1). */
export type OrganizationRole = 'owner' | 'admin' | 'publisher' | 'viewer';
export type OrganizationState = 'active' | 'suspended' | 'deleted';
export type MembershipState = 'active' | 'suspended' | 'removed';
export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';
export type RegistrationPolicy = 'invitation_only' | 'admin_only' | 'disabled' | 'open';
export type Environment = 'development' | 'test' | 'staging' | 'production';

/** A keyed digest as stored: algorithm, encoded value and pepper key version. */
export interface StoredDigest {
  readonly algorithm: 'hmac-sha256' | 'sha256';
  readonly encoded: string;
  readonly keyVersion: string | null;
}

export interface UserRecord {
  readonly id: string;
  readonly primaryEmail: string | null;
  readonly displayName: string;
  readonly state: UserState;
  readonly sessionEpoch: number;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Federation provenance of an `oidc`/`saml` session (all or none). */
export interface SessionFederation {
  readonly organizationId: string;
  readonly providerKey: string;
  readonly providerSessionEpoch: number;
  readonly externalIdentityId: string;
}

export interface SessionRecord {
  readonly id: string;
  readonly familyId: string;
  readonly userId: string;
  readonly tokenDigest: StoredDigest;
  readonly csrfDigest: StoredDigest;
  readonly state: SessionState;
  readonly assurance: Assurance;
  readonly authenticationMethod: AuthenticationMethod;
  readonly label: string | null;
  readonly platform: string | null;
  readonly userSessionEpoch: number;
  readonly rotationCounter: number;
  readonly rotatedToId: string | null;
  readonly authenticatedAt: Date;
  readonly lastUsedAt: Date;
  readonly idleExpiresAt: Date;
  readonly absoluteExpiresAt: Date;
  readonly revokedAt: Date | null;
  readonly revokedReason: string | null;
  readonly federation: SessionFederation | null;
  readonly version: number;
  readonly createdAt: Date;
}

export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly state: OrganizationState;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly deletedAt: Date | null;
}

export interface MembershipRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly role: OrganizationRole;
  readonly state: MembershipState;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly removedAt: Date | null;
}

export interface InvitationRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly email: string;
  readonly role: OrganizationRole;
  readonly state: InvitationState;
  readonly tokenDigest: StoredDigest;
  readonly invitedByUserId: string | null;
  readonly acceptedByUserId: string | null;
  readonly version: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly acceptedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** Actor of an audit event (identity-model §8.1). */
export type AuditActor =
  | { readonly type: 'anonymous' }
  | { readonly type: 'system' }
  | { readonly type: 'user'; readonly userId: string }
  | { readonly type: 'service'; readonly serviceIdentityId: string };

/** Request facts kept with an audit event: pseudonyms only, never a raw address or user-agent. */
export interface AuditRequest {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly userAgent?: string;
  readonly clientIpDigest?: string;
  readonly trustedProxy: boolean;
}

export interface AuditEventRecord {
  readonly id: string;
  readonly actor: AuditActor;
  readonly organizationId: string | null;
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string } | null;
  readonly outcome: 'succeeded' | 'denied' | 'failed';
  readonly reasonCode: string | null;
  readonly request: AuditRequest | null;
  readonly occurredAt: Date;
}

/** An audit event to write in the same transaction as the command (id and time given by the caller). */
export type AuditEventInput = AuditEventRecord;

/** WebAuthn transports (identity-http §4.5); `smart-card` keeps its hyphen everywhere. */
export type AuthenticatorTransport = 'usb' | 'nfc' | 'ble' | 'internal' | 'hybrid' | 'smart-card';
/** Passkey state (identity-model §5.11). */
export type CredentialState = 'active' | 'suspended' | 'suspected_clone' | 'revoked';

/** A registered passkey (table `credentials`). */
export interface CredentialRecord {
  readonly id: string;
  readonly userId: string;
  /** The WebAuthn credential id, base64url. */
  readonly webAuthnId: string;
  readonly name: string;
  /** COSE public key bytes. */
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly transports: readonly AuthenticatorTransport[];
  readonly state: CredentialState;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** Challenge purposes (identity-model §5.3). */
export type ChallengePurpose =
  | 'webauthn_registration'
  | 'webauthn_authentication'
  | 'step_up'
  | 'account_recovery'
  | 'invitation_acceptance'
  | 'device_authorization'
  | 'external_identity_link'
  | 'service_credential_rotation';
/** Challenge state (identity-model §5.3). */
export type ChallengeState = 'pending' | 'consumed' | 'failed' | 'expired';

/**
 * A ceremony or administrative recovery ticket (table `challenges`). Only digests are stored:
 * the challenge digest, the ceremony-cookie binding digest, the payload digest (purpose ‖
 * registration source ‖ RP ID) and, for tickets, the user binding digest.
 */
export interface ChallengeRecord {
  readonly id: string;
  readonly purpose: ChallengePurpose;
  readonly state: ChallengeState;
  readonly challengeDigest: StoredDigest;
  readonly bindingDigest: string | null;
  readonly payloadDigest: string | null;
  readonly userBindingDigest: string | null;
  readonly userId: string | null;
  readonly organizationId: string | null;
  readonly expiresAt: Date;
  /** Administrative recovery tickets: set once delivery succeeded. */
  readonly activatedAt: Date | null;
  readonly failureReason: string | null;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Recovery code state (identity-model §5.6). */
export type RecoveryCodeState = 'active' | 'consumed' | 'revoked' | 'expired';

/** One recovery code of a generation (table `recovery_codes`); the secret is stored as a keyed digest. */
export interface RecoveryCodeRecord {
  readonly id: string;
  readonly userId: string;
  readonly generation: number;
  /** Set only for a code of the earlier `<selector>.<secret>` format. */
  readonly publicSelector: string | null;
  readonly secretDigest: StoredDigest;
  readonly state: RecoveryCodeState;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly consumedAt: Date | null;
}
