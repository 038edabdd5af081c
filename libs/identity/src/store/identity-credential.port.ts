import type {
  AuditEventInput,
  AuthenticatorTransport,
  ChallengePurpose,
  ChallengeRecord,
  CredentialRecord,
  InvitationRecord,
  RecoveryCodeRecord,
  SessionRecord,
  StoredDigest,
  UserRecord,
} from './identity-records.js';
import type { NewSession, StoreResult } from './identity-store.port.js';

/** A challenge to insert as `pending`, version 0 (identity-model §5.3). */
export interface NewChallenge {
  readonly id: string;
  readonly purpose: ChallengePurpose;
  readonly challengeDigest: StoredDigest;
  readonly bindingDigest: string | null;
  readonly payloadDigest: string | null;
  readonly userBindingDigest: string | null;
  readonly userId: string | null;
  readonly organizationId: string | null;
  readonly expiresAt: Date;
}

/** A passkey to insert as `active`, version 0. */
export interface NewCredential {
  readonly id: string;
  readonly userId: string;
  readonly webAuthnId: string;
  readonly name: string;
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly transports: readonly AuthenticatorTransport[];
}

/** One recovery code to insert as `active` (the store assigns the generation). */
export interface NewRecoveryCode {
  readonly id: string;
  /** Only a code of the earlier `<selector>.<secret>` format has one; new codes are found by digest. */
  readonly publicSelector?: string;
  readonly secretDigest: StoredDigest;
}

/** The challenge a completion consumes: CAS on `pending` + version; expiry is checked against `at`. */
export interface ChallengeClaim {
  readonly challengeId: string;
  readonly expectedVersion: number;
  readonly purpose: ChallengePurpose;
}

/**
 * Audits of a deterministic rejection: when the completion is rejected (duplicate credential id,
 * FED1 re-check, restricted session gone) everything rolls back except the challenge → `failed`
 * with `failureReason` and these events, which commit.
 */
export interface RejectionAudit {
  readonly failureReason: string;
  readonly audits: readonly AuditEventInput[];
}

/** What the finish of a passkey assertion decides on, read at once ({@link IdentityCredentialReads.findAssertionSubjects}). */
export interface AssertionSubjects {
  /** The challenge the ceremony id names, in whatever state. */
  readonly challenge: ChallengeRecord | null;
  /** The credential registered under the assertion's WebAuthn id, in whatever state. */
  readonly credential: CredentialRecord | null;
  /** That credential's user (`null` exactly when `credential` is). */
  readonly owner: UserRecord | null;
}

/** Reads of the passkey and recovery features (identity-model §9.1). */
export interface IdentityCredentialReads {
  findCredential(id: string): Promise<CredentialRecord | null>;
  findCredentialByWebAuthnId(webAuthnId: string): Promise<CredentialRecord | null>;
  /**
   * The challenge `challengeId` names, the credential registered under `webAuthnId` and its user,
   * in one read (a sign-in or step-up finish). A challenge id that is not a UUID, or a `null`
   * WebAuthn id, matches nothing.
   */
  findAssertionSubjects(challengeId: string, webAuthnId: string | null): Promise<AssertionSubjects>;
  /** Every credential of the user in any state, oldest first (`createdAt`, then id). */
  listCredentialsForUser(userId: string): Promise<CredentialRecord[]>;
  findChallenge(id: string): Promise<ChallengeRecord | null>;
  /**
   * The code stored under one of `digests` (one per recovery pepper version, current first), by
   * the unique digest index in one read; `null` when none matches.
   */
  findRecoveryCodeByDigests(digests: readonly StoredDigest[]): Promise<RecoveryCodeRecord | null>;
  /** A code of the earlier `<selector>.<secret>` format, by its selector. */
  findRecoveryCodeBySelector(publicSelector: string): Promise<RecoveryCodeRecord | null>;
  /** Every recovery code of the user, by generation then id. */
  listRecoveryCodesForUser(userId: string): Promise<RecoveryCodeRecord[]>;
  /** The invitation the user enrolled through (`acceptedByUserId`), if any. */
  findInvitationAcceptedByUser(userId: string): Promise<InvitationRecord | null>;
}

/** Ceremony, passkey and recovery commands (identity-model §5.2, §5.3, §5.6, §9.2). */
export interface IdentityCredentialCommands {
  /** Inserts a pending challenge v0 (+ optional audit, e.g. `recovery.admin_ticket_created`). */
  createChallenge(input: {
    challenge: NewChallenge;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<ChallengeRecord>>;
  /**
   * CAS `pending` → `outcome` (+ audits). Fails `challenge_not_pending` when the state moved,
   * `version_conflict` on a version race, `not_found` when absent.
   */
  consumeChallenge(input: {
    challengeId: string;
    expectedVersion: number;
    outcome: 'consumed' | 'failed' | 'expired';
    failureReason: string | null;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<ChallengeRecord>>;
  /**
   * Consume the registration challenge + insert the credential + audits. With
   * `requireNoCredential` (FED1) the user row is locked and any non-revoked credential rejects
   * with `already_exists`; a duplicate WebAuthn id rejects with `unique_constraint`. Rejections
   * commit only the failed challenge and `rejection.audits`.
   */
  completeCredentialRegistration(input: {
    claim: ChallengeClaim;
    at: Date;
    credential: NewCredential;
    requireNoCredential: boolean;
    audits: readonly AuditEventInput[];
    rejection: RejectionAudit;
  }): Promise<StoreResult<CredentialRecord>>;
  /**
   * Registration finish in a restricted session (identity-model §5.6): consume the challenge,
   * insert the passkey, `sessionEpoch + 1`, revoke every active session of the user (the
   * restricted one included, which must still be active), revoke active recovery codes and
   * insert the 10 new ones as the next generation, audits — one transaction, rejection
   * semantics as registration.
   */
  completeRecoveryEnrollment(input: {
    claim: ChallengeClaim;
    at: Date;
    credential: NewCredential;
    restrictedSessionId: string;
    recoveryCodes: readonly NewRecoveryCode[];
    audits: readonly AuditEventInput[];
    rejection: RejectionAudit;
  }): Promise<
    StoreResult<{ credential: CredentialRecord; generation: number; revokedSessionIds: string[]; sessionEpoch: number }>
  >;
  /**
   * Consume the authentication/step-up challenge, CAS the credential (active, owned by the
   * session's user, `expectedVersion`) to the new counter/backup state and `lastUsedAt`, then
   * insert `session` — or, with `rotateFrom`, rotate that session of the same user into it
   * (family, counter + 1, absolute never extended) — plus audits.
   */
  completeCredentialAuthentication(input: {
    claim: ChallengeClaim;
    at: Date;
    credentialId: string;
    expectedCredentialVersion: number;
    signCount: number;
    backedUp: boolean;
    session: NewSession;
    rotateFrom: { sessionId: string; expectedVersion: number } | null;
    audits: readonly AuditEventInput[];
    rejection: RejectionAudit;
  }): Promise<StoreResult<{ credential: CredentialRecord; session: SessionRecord; previous: SessionRecord | null }>>;
  /** Consume the challenge + credential → `suspected_clone` + denied audit (counter regression). */
  quarantineCredentialAuthentication(input: {
    claim: ChallengeClaim;
    at: Date;
    credentialId: string;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<CredentialRecord>>;
  /** CAS rename (any non-revoked state) or revoke (→ `revoked`) of the user's own credential + audit. */
  mutateCredential(input: {
    credentialId: string;
    userId: string;
    expectedVersion: number;
    change: { readonly kind: 'rename'; readonly name: string } | { readonly kind: 'revoke' };
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<CredentialRecord>>;
  /**
   * Generation CAS under the user lock: `expectedGeneration` (when given) must equal the current
   * generation (−1 when the user never had codes) else `version_conflict`; active codes →
   * `revoked`; the 10 new codes become generation current + 1; audit.
   */
  replaceRecoveryCodes(input: {
    userId: string;
    expectedGeneration: number | null;
    codes: readonly NewRecoveryCode[];
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ generation: number }>>;
  /**
   * Lock the code: `active` at `expectedVersion` and the user `active` → code `consumed` + the
   * restricted session inserted (epoch from the locked user row) + audit. Loser:
   * `recovery_code_not_active` or `version_conflict`.
   */
  consumeRecoveryCode(input: {
    codeId: string;
    expectedVersion: number;
    at: Date;
    session: NewSession;
    audit: AuditEventInput;
  }): Promise<StoreResult<{ code: RecoveryCodeRecord; session: SessionRecord }>>;
  /** Pending, unexpired, inactive ticket → `activatedAt` set (version + 1) + delivered audit. */
  activateAdministrativeRecoveryTicket(input: {
    ticketId: string;
    expectedVersion: number;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<ChallengeRecord>>;
  /**
   * Activated, pending, unexpired ticket whose user is active → `consumed` + restricted session
   * (method `administrative_recovery`) + audit. An inactive ticket fails `invalid_transition`.
   */
  redeemAdministrativeRecoveryTicket(input: {
    ticketId: string;
    expectedVersion: number;
    at: Date;
    session: NewSession;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<{ ticket: ChallengeRecord; session: SessionRecord }>>;
}
