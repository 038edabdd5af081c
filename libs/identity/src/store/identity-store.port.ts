import type { IdentityScimPort } from './identity-scim.port.js';
import type { StoreErrorCode } from '../errors/store.errors.js';
import type { IdentityCredentialCommands, IdentityCredentialReads } from './identity-credential.port.js';
import type { IdentityDevicePort } from './identity-device.port.js';
import type {
  IdentityFederationCommands,
  IdentityFederationReads,
  IdentityFederationRegistryReads,
} from './identity-federation.port.js';
import type { IdentityMaintenanceCommands } from './identity-maintenance.port.js';
import type { IdentityInvitationAuditPort } from './identity-invitation-audit.port.js';
import type { IdentityOrganizationCommands, IdentityOrganizationReads } from './identity-organization.port.js';
import type { IdentityServicePort } from './identity-service.port.js';
import type {
  AuditEventInput,
  Environment,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
  SessionRecord,
  StoredDigest,
  UserRecord,
  Assurance,
  AuthenticationMethod,
  OrganizationRole,
  SessionFederation,
} from './identity-records.js';

/** Store error codes (identity-model §9.4); only `version_conflict` and `unavailable` are retryable. */
export type StoreFailureCode = StoreErrorCode;

/** Outcome of an atomic command: expected races come back as failures, never as exceptions. */
export type StoreResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: StoreFailureCode };

/** A session to insert; the store stamps `userSessionEpoch` from the locked user row. */
export interface NewSession {
  readonly id: string;
  readonly familyId: string;
  readonly userId: string;
  readonly tokenDigest: StoredDigest;
  readonly csrfDigest: StoredDigest;
  readonly assurance: Assurance;
  readonly authenticationMethod: AuthenticationMethod;
  readonly label: string | null;
  readonly platform: string | null;
  readonly rotationCounter: number;
  readonly authenticatedAt: Date;
  readonly idleExpiresAt: Date;
  readonly absoluteExpiresAt: Date;
  readonly federation: SessionFederation | null;
}

export interface NewUser {
  readonly id: string;
  readonly primaryEmail: string | null;
  readonly displayName: string;
}

export interface NewOrganization {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
}

export interface NewMembership {
  readonly id: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly role: OrganizationRole;
}

export interface NewInvitation {
  readonly id: string;
  readonly organizationId: string;
  readonly email: string;
  readonly role: OrganizationRole;
  readonly tokenDigest: StoredDigest;
  readonly invitedByUserId: string | null;
  readonly expiresAt: Date;
}

/** Reads used by sessions, bootstrap and invitations (identity-model §9.1). */
export interface IdentityStoreReads {
  findUser(id: string): Promise<UserRecord | null>;
  /** The users among `ids` (at most 1,000; malformed ids match nothing), in no particular order: one indexed read. */
  listUsersByIds(ids: readonly string[]): Promise<UserRecord[]>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  findSession(id: string): Promise<SessionRecord | null>;
  /** The session and its user in one round trip (the per-request credential check). */
  findSessionWithUser(id: string): Promise<{ session: SessionRecord; user: UserRecord } | null>;
  /** Every stored session of the user, any state, newest `lastUsedAt` first. */
  listSessionsForUser(userId: string): Promise<SessionRecord[]>;
  findOrganization(id: string): Promise<OrganizationRecord | null>;
  findOrganizationBySlug(slug: string): Promise<OrganizationRecord | null>;
  findMembership(id: string): Promise<MembershipRecord | null>;
  findMembershipForUser(organizationId: string, userId: string): Promise<MembershipRecord | null>;
  /** Organizations with an active membership of the user, active only, sorted by id. */
  listOrganizationsForUser(
    userId: string,
  ): Promise<{ organization: OrganizationRecord; membership: MembershipRecord }[]>;
  findInvitation(id: string): Promise<InvitationRecord | null>;
  findInvitationByTokenDigest(digest: StoredDigest): Promise<InvitationRecord | null>;
  /** `true` while no user, organization or bootstrap receipt exists. */
  isEmpty(): Promise<boolean>;
}

/** Session commands (identity-model §5.1, §9.2). */
export interface IdentitySessionCommands {
  /** CAS on `version`: `lastUsedAt`/`idleExpiresAt` only, no audit. */
  touchIdentitySession(input: {
    sessionId: string;
    expectedVersion: number;
    lastUsedAt: Date;
    idleExpiresAt: Date;
  }): Promise<StoreResult<SessionRecord>>;
  /** Old → `rotated`, replacement in the same family (counter + 1), absolute never extended; one winner. */
  rotateSession(input: {
    sessionId: string;
    expectedVersion: number;
    expectedUserId: string;
    replacement: NewSession;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ previous: SessionRecord; session: SessionRecord }>>;
  /** CAS one active session → `revoked` + audit. */
  revokeSession(input: {
    sessionId: string;
    userId: string;
    reason: 'logout' | 'user_revoked_device';
    revokedAt: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<SessionRecord>>;
  /** `sessionEpoch + 1` exactly and every active session revoked (optionally but one, which takes the new epoch). */
  revokeUserSessions(input: {
    userId: string;
    exceptSessionId: string | null;
    reason: string;
    revokedAt: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ revokedSessionIds: string[]; sessionEpoch: number }>>;
}

/** Bootstrap and invitation commands (identity-model §5.4, §5.7). */
export interface IdentityEnrollmentCommands {
  /** Completely empty store only: user, organization, owner membership, receipt, restricted session, audit. */
  bootstrapIdentity(input: {
    user: NewUser;
    organization: NewOrganization;
    membership: NewMembership;
    session: NewSession;
    receiptDigest: string;
    at: Date;
    audits: AuditEventInput[];
  }): Promise<
    StoreResult<{
      user: UserRecord;
      organization: OrganizationRecord;
      membership: MembershipRecord;
      session: SessionRecord;
    }>
  >;
  /**
   * Inserts a `pending` invitation of an active organization + audit; an `owner` invitation issued
   * by a user re-checks that user's active owner membership under lock (else `not_found`).
   */
  createInvitation(input: {
    invitation: NewInvitation;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<InvitationRecord>>;
  /**
   * Recheck digest, version, `pending`, expiry and email uniqueness under lock; insert user,
   * membership and restricted session; invitation → `accepted`; audits. All or nothing.
   */
  enrollInvitation(input: {
    tokenDigest: StoredDigest;
    at: Date;
    user: NewUser;
    membershipId: string;
    session: NewSession;
    /** `admin_only` policy: the invitation must have an issuing user. */
    requireIssuingUser: boolean;
    audits: (invitation: InvitationRecord) => AuditEventInput[];
  }): Promise<
    StoreResult<{
      invitation: InvitationRecord;
      user: UserRecord;
      membership: MembershipRecord;
      session: SessionRecord;
    }>
  >;
}

/** Audit writes outside another command. */
export interface IdentityAuditCommands {
  appendAuditEvent(event: AuditEventInput): Promise<StoreResult<void>>;
}

/**
 * Which check of identity-model §9.7 keeps the store closed: the environment marker (missing, or
 * another environment or namespace), or the schema version (the migration ledger lacks a migration
 * of this build, holds a different checksum, or records one this build does not know).
 */
export type EnvironmentRefusal = 'environment_marker' | 'schema_version';

/**
 * Outcome of provisioning or verifying the environment; a definite refusal (`internal`) names the
 * check that failed, an unreachable database (`unavailable`) names none.
 */
export type EnvironmentResult =
  | { readonly ok: true; readonly value: void }
  | { readonly ok: false; readonly code: StoreFailureCode; readonly refusal?: EnvironmentRefusal };

/** Environment marker and schema version (identity-model §9.7). */
export interface IdentityEnvironmentCommands {
  /**
   * Creates the marker when absent; an existing marker must match exactly (never overwritten), and
   * the schema must be at this build's latest migration.
   */
  provisionEnvironment(marker: { environment: Environment; namespace: string }): Promise<EnvironmentResult>;
  /**
   * Checks the stored marker and that the schema is at this build's latest migration; until both
   * hold, every other operation fails with `internal`.
   */
  verifyEnvironment(marker: { environment: Environment; namespace: string }): Promise<EnvironmentResult>;
  /**
   * The engine behind the live connection, read from the server itself (`select version()`), not
   * from configuration: `pglite` for embedded PGlite (WebAssembly), else `postgresql`. Rejects
   * when the database cannot be reached.
   */
  inspectDatabaseEngine(): Promise<DatabaseEngine>;
  /**
   * What the migration ledger says of the schema against this build (the schema version check of
   * {@link verifyEnvironment}, which accepts `current` only), read without opening or closing the
   * store: the readiness probe asks it on every call. Rejects when the database cannot be reached.
   */
  inspectSchemaVersion(): Promise<SchemaVersionState>;
}

/**
 * The identity migration ledger against this build: `current` (exactly its migrations and
 * checksums), `newer` (those plus migrations it does not know: a newer build migrated the
 * database), `behind` (one of its migrations is missing) or `drift` (one holds another checksum).
 */
export type SchemaVersionState = 'current' | 'newer' | 'behind' | 'drift';

/** What a store's live connection reaches. */
export type DatabaseEngine = 'postgresql' | 'pglite';

/**
 * The identity store port (identity-model §9): reads plus atomic commands, each one transaction.
 * Later features add their command groups (credentials, recovery, organizations, device grants,
 * service identities, federation, SCIM) to this intersection.
 */
export type IdentityStore = IdentityStoreReads &
  IdentityCredentialReads &
  IdentitySessionCommands &
  IdentityCredentialCommands &
  IdentityInvitationAuditPort &
  IdentityEnrollmentCommands &
  IdentityAuditCommands &
  IdentityEnvironmentCommands &
  IdentityServicePort &
  IdentityOrganizationReads &
  IdentityOrganizationCommands &
  IdentityFederationReads &
  IdentityFederationRegistryReads &
  IdentityFederationCommands &
  IdentityDevicePort &
  IdentityScimPort &
  IdentityMaintenanceCommands;

/** DI token of the {@link IdentityStore} port. */
export const IdentityStore: unique symbol = Symbol('IdentityStore');
