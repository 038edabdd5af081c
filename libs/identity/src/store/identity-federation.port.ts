import type {
  ExternalIdentityRecord,
  FederatedAssertion,
  FederationProtocol,
  FederationProviderControlRecord,
  FederationProviderLease,
  FederationProviderState,
  FederationRegistrationChange,
  FederationRegistrationRecord,
  FederationTransactionRecord,
  NewFederationRegistration,
} from './identity-federation.records.js';
import type {
  AuditEventInput,
  MembershipRecord,
  MembershipState,
  OrganizationState,
  SessionFederation,
  SessionRecord,
  UserRecord,
} from './identity-records.js';
import type { NewSession, NewUser, StoreResult } from './identity-store.port.js';

/**
 * What a federated session's validity depends on beyond its user (identity-http §2.1), as stored
 * now; `null` where the row does not exist.
 */
export interface FederatedSessionStanding {
  /** The provider control of the session's tenant and provider key. */
  readonly provider: { readonly state: 'enabled' | 'disabled'; readonly sessionEpoch: number } | null;
  readonly organizationState: OrganizationState | null;
  /** The user's membership in the session's tenant. */
  readonly membershipState: MembershipState | null;
}

/** Reads of the federation provenance a session carries. */
export interface IdentityFederationReads {
  /**
   * The standing of `federation` for `userId` in one round trip.
   *
   * @example
   * const standing = await store.findFederatedSessionStanding(session.federation, session.userId);
   */
  findFederatedSessionStanding(federation: SessionFederation, userId: string): Promise<FederatedSessionStanding>;
}

/**
 * One organization's provider as the management routes show it: the registration, its control
 * (absent only in a corrupted store) and how many identities are linked through it.
 */
export interface FederationProviderEntry {
  readonly registration: FederationRegistrationRecord;
  readonly control: FederationProviderControlRecord | null;
  /** Active external identities with the registration's storage key. */
  readonly linkedIdentities: number;
}

/** Reads of provider registrations, controls and links (identity-model §9.1). Non-UUID ids match nothing. */
export interface IdentityFederationRegistryReads {
  findFederationProviderControl(
    organizationId: string,
    providerId: string,
  ): Promise<FederationProviderControlRecord | null>;
  findFederationProviderControlByStorageKey(storageKey: string): Promise<FederationProviderControlRecord | null>;
  findExternalIdentity(provider: string, subject: string): Promise<ExternalIdentityRecord | null>;
  /** Active external identities linked through the provider storage key `provider`. */
  countExternalIdentities(provider: string): Promise<number>;
  /** The organization-managed registration of (organization, providerId), or `null`. */
  findFederationRegistration(organizationId: string, providerId: string): Promise<FederationRegistrationRecord | null>;
  /** One registration with its control and linked-identity count, or `null`. */
  findFederationProvider(organizationId: string, providerId: string): Promise<FederationProviderEntry | null>;
  /** Every registration of the organization with its control and count, sorted by `providerId`. */
  listFederationProviders(organizationId: string): Promise<FederationProviderEntry[]>;
}

/** How a verified federated sign-in ends (identity-http §6). */
export type FederatedSignInMode =
  /**
   * Sign in through an existing link; without one, JIT (when `jit` is given) or `not_found`. The
   * caller's session (`replacesSessionId`), when still active and of the signed-in user, is
   * rotated into the federated session; otherwise it is left alone.
   */
  | {
      readonly kind: 'sign_in';
      readonly jit: { readonly user: NewUser; readonly membershipId: string } | null;
      readonly replacesSessionId?: string | null;
    }
  /**
   * A signed-in user links the identity to their own account: the initiating session (active, of
   * `expectedUserId`) is rotated into the federated session; an identity linked to another user is
   * `already_exists`.
   */
  | { readonly kind: 'link'; readonly sessionId: string; readonly expectedUserId: string };

/** What {@link IdentityFederationCommands.linkExternalIdentity} wrote. */
export interface FederatedSignIn {
  readonly user: UserRecord;
  readonly membership: MembershipRecord;
  readonly link: ExternalIdentityRecord;
  /** `true` when this call created the link. */
  readonly linked: boolean;
  /** `true` when this call created the user (JIT). */
  readonly provisioned: boolean;
  readonly session: SessionRecord;
  /** The rotated initiating session (mode `link`). */
  readonly previous: SessionRecord | null;
}

/** Federation commands (identity-model §5.9, §9.2): each one transaction, lease-checked where it says so. */
export interface IdentityFederationCommands {
  /**
   * Locks the control of (organization, providerId), creating it `enabled`, version 0, epoch 0
   * when absent, and returns the lease. Disabled → `federation_provider_disabled`; a control with
   * another kind or storage key → `invalid_transition`; an inactive organization → `not_found`.
   */
  acquireFederationProviderLease(input: {
    organizationId: string;
    providerId: string;
    kind: FederationProtocol;
    storageKey: string;
    at: Date;
  }): Promise<StoreResult<FederationProviderLease>>;
  /** `ok` when the lease equals the current enabled control, else `federation_provider_disabled`. */
  validateFederationProviderLease(lease: FederationProviderLease): Promise<StoreResult<void>>;
  /**
   * One CAS of the control (identity-model §5.9). `expectedVersion: null` creates the row: target
   * `disabled` → version 0, epoch 1; target `enabled` → version 0, epoch 0. Otherwise disable =
   * version + 1, epoch + 1, `disabledAt`/`disabledReason` set; enable = version + 1, epoch kept.
   * Stale version → `version_conflict`; the row already in the target state → `invalid_transition`
   * (the caller re-reads: idempotent in the target state). Writes `audit(control)` with it.
   */
  compareAndSetFederationProviderState(input: {
    organizationId: string;
    providerId: string;
    kind: FederationProtocol;
    storageKey: string;
    expectedVersion: number | null;
    target: FederationProviderState;
    /** Disable only: 1..200 chars. */
    reason: string | null;
    at: Date;
    audit: (control: FederationProviderControlRecord) => AuditEventInput;
  }): Promise<StoreResult<FederationProviderControlRecord>>;
  /** Inserts the transaction after validating its lease in the same transaction. */
  createFederationTransaction(transaction: FederationTransactionRecord): Promise<StoreResult<void>>;
  /**
   * Deletes the transaction of `selectorDigest` exactly once (one winner among concurrent
   * callers) and returns it. Missing, or of another organization/provider → `not_found` (nothing
   * deleted); expired → deleted and `challenge_expired`.
   */
  consumeFederationTransaction(input: {
    selectorDigest: string;
    organizationId: string;
    providerId: string;
    at: Date;
  }): Promise<StoreResult<FederationTransactionRecord>>;
  /**
   * The callback's one transaction (identity-http §6): lease check; replay receipt (unique per
   * provider → `replay_detected`); the link by (provider, subject) — found, or created for the
   * initiating user (`link`) or for a JIT user (active, no email, `viewer` membership); active
   * user, organization and membership required (`invalid_transition`); then the federated session
   * (`sessionFor`) is inserted or the initiating session rotated into it; `audits` are written
   * with it. Any failure leaves nothing behind.
   */
  linkExternalIdentity(input: {
    lease: FederationProviderLease;
    assertion: FederatedAssertion;
    mode: FederatedSignInMode;
    /** Id of the link if this call creates one. */
    externalIdentityId: string;
    at: Date;
    /** The federated session to insert; `predecessor` is the initiating session (mode `link`), read under lock. */
    sessionFor: (user: UserRecord, link: ExternalIdentityRecord, predecessor: SessionRecord | null) => NewSession;
    audits: (outcome: Omit<FederatedSignIn, 'session' | 'previous'> & { session: NewSession }) => AuditEventInput[];
  }): Promise<StoreResult<FederatedSignIn>>;
  /** Lease check + unique replay receipt (identity-model §9.2). */
  recordExternalIdentityReplay(input: {
    lease: FederationProviderLease;
    assertion: FederatedAssertion;
    at: Date;
  }): Promise<StoreResult<void>>;
  /**
   * Inserts a registration (`already_exists` when (organization, providerId) is registered) and
   * creates its control `enabled` (v0, epoch 0), or enables an existing disabled control with the
   * same kind and storage key (version + 1, epoch kept); a control with another storage key →
   * `already_exists`. Inactive organization → `not_found`. `audits` are written with it.
   */
  createFederationRegistration(input: {
    registration: NewFederationRegistration;
    at: Date;
    audits: (entry: FederationProviderEntry) => AuditEventInput[];
  }): Promise<StoreResult<FederationProviderEntry>>;
  /** CAS on the registration's version: applies `change`, version + 1, + audit. */
  updateFederationRegistration(input: {
    organizationId: string;
    providerId: string;
    expectedVersion: number;
    change: FederationRegistrationChange;
    at: Date;
    audit: (entry: FederationProviderEntry) => AuditEventInput;
  }): Promise<StoreResult<FederationProviderEntry>>;
  /**
   * Deletes the registration and disables its control when enabled (version + 1, epoch + 1, so
   * every session through it is invalid); links and receipts stay. + audits.
   */
  deleteFederationRegistration(input: {
    organizationId: string;
    providerId: string;
    expectedVersion: number;
    reason: string;
    at: Date;
    audits: (entry: FederationProviderEntry) => AuditEventInput[];
  }): Promise<StoreResult<void>>;
}
