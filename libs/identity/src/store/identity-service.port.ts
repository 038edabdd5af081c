import type { AuditEventInput, OrganizationRecord, StoredDigest } from './identity-records.js';
import type { StoreResult } from './identity-store.port.js';

/** Service identity state (identity-model §5.8). */
export type ServiceIdentityState = 'active' | 'suspended' | 'revoked';
/** Service credential state (identity-model §5.8); `expired` is computed from `expiresAt`, never written. */
export type ServiceCredentialState = 'active' | 'rotated' | 'revoked' | 'expired';

/** A service principal of one organization (table `service_identities`). */
export interface ServiceIdentityRecord {
  readonly id: string;
  readonly organizationId: string;
  /** Unique per organization. */
  readonly name: string;
  readonly description: string | null;
  /** The identity's scopes: every credential's scopes are a subset. */
  readonly capabilities: readonly string[];
  readonly state: ServiceIdentityState;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revokedAt: Date | null;
}

/**
 * A service credential (table `service_credentials`): the token `<id>.<b64url(32 B)>` is shown
 * once; only its keyed digest is stored, `publicPrefix` = the credential id.
 */
export interface ServiceCredentialRecord {
  readonly id: string;
  readonly serviceIdentityId: string;
  readonly publicPrefix: string;
  readonly secretDigest: StoredDigest;
  readonly capabilities: readonly string[];
  readonly state: ServiceCredentialState;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastUsedAt: Date | null;
  /** Set with `rotatedToId`; the credential still authenticates for the rotation overlap. */
  readonly rotatedAt: Date | null;
  readonly rotatedToId: string | null;
  readonly revokedAt: Date | null;
  readonly version: number;
}

/** A service identity to insert as `active`, version 0. */
export interface NewServiceIdentity {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly description: string | null;
  readonly capabilities: readonly string[];
}

/** A service credential to insert as `active`, version 0 (its `publicPrefix` is its id). */
export interface NewServiceCredential {
  readonly id: string;
  readonly serviceIdentityId: string;
  readonly secretDigest: StoredDigest;
  readonly capabilities: readonly string[];
  readonly expiresAt: Date;
}

/** A rotation's replacement: the store takes identity and scopes from the rotated credential. */
export type ServiceCredentialReplacement = Omit<NewServiceCredential, 'serviceIdentityId' | 'capabilities'>;

/** What a bearer resolution reads in one round trip: the credential, its identity and organization. */
export interface ServiceCredentialGrant {
  readonly credential: ServiceCredentialRecord;
  readonly identity: ServiceIdentityRecord;
  readonly organization: OrganizationRecord;
}

/** Reads of the service-identity feature (identity-model §9.1). Ids that are not UUIDs match nothing. */
export interface IdentityServiceReads {
  findServiceIdentity(id: string): Promise<ServiceIdentityRecord | null>;
  /** Every service identity of the organization in any state, oldest first (`createdAt`, then id). */
  listServiceIdentitiesForOrganization(organizationId: string): Promise<ServiceIdentityRecord[]>;
  findServiceCredentialByPrefix(publicPrefix: string): Promise<ServiceCredentialRecord | null>;
  /** Every credential of the identity in any state, oldest first (`createdAt`, then id). */
  listServiceCredentialsForIdentity(serviceIdentityId: string): Promise<ServiceCredentialRecord[]>;
  /** The credential with its identity and organization (the per-request bearer check). */
  findServiceCredentialGrant(publicPrefix: string): Promise<ServiceCredentialGrant | null>;
}

/**
 * Service identity and credential commands (identity-model §5.8, §9.2), each one transaction.
 * Unknown or other-organization rows fail `not_found`; a state that forbids the change, or
 * credential scopes outside the identity's, fail `invalid_transition`.
 */
export interface IdentityServiceCommands {
  /** The identity and its first credential (scopes ⊆ identity scopes) + audits; a taken name → `unique_constraint`. */
  createServiceIdentity(input: {
    identity: NewServiceIdentity;
    credential: NewServiceCredential;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<{ identity: ServiceIdentityRecord; credential: ServiceCredentialRecord }>>;
  /**
   * CAS on `version` (any non-revoked state): rename / describe, or revoke — then every `active`
   * or `rotated` credential of the identity → `revoked` in the same transaction. Audit.
   */
  mutateServiceIdentity(input: {
    serviceIdentityId: string;
    organizationId: string;
    expectedVersion: number;
    change:
      | { readonly kind: 'update'; readonly name: string; readonly description: string | null }
      | { readonly kind: 'revoke' };
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ identity: ServiceIdentityRecord; revokedCredentialIds: string[] }>>;
  /** A new credential of an active identity of the organization (scopes ⊆ identity scopes) + audit. */
  createServiceCredential(input: {
    organizationId: string;
    credential: NewServiceCredential;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<ServiceCredentialRecord>>;
  /** `active` or `rotated` credential of the identity → `revoked` + audit. */
  revokeServiceCredential(input: {
    serviceIdentityId: string;
    credentialId: string;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<ServiceCredentialRecord>>;
  /**
   * Under a row lock: an `active` credential unexpired at `at`, of an active identity → `rotated`
   * (`rotatedAt` = `at`, `rotatedToId`) + the replacement, active with the same scopes + audit.
   * Of two concurrent rotations exactly one wins; the loser gets `invalid_transition`.
   */
  rotateServiceCredential(input: {
    serviceIdentityId: string;
    credentialId: string;
    replacement: ServiceCredentialReplacement;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ previous: ServiceCredentialRecord; credential: ServiceCredentialRecord }>>;
  /**
   * Sets `lastUsedAt` when it is at or before `staleBefore` (or unset), no audit: `null` when
   * another request touched it more recently.
   */
  touchServiceCredential(input: {
    credentialId: string;
    lastUsedAt: Date;
    staleBefore: Date;
  }): Promise<StoreResult<ServiceCredentialRecord | null>>;
}

/** The service-identity slice of the `IdentityStore` port. */
export type IdentityServicePort = IdentityServiceReads & IdentityServiceCommands;
