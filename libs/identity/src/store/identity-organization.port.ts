import type { AuditEventInput, MembershipRecord, OrganizationRecord, OrganizationRole } from './identity-records.js';
import type { NewMembership, NewOrganization, StoreResult } from './identity-store.port.js';

/** What `mutateOrganization` changes: the name, or a soft delete (→ `deleted`, `deletedAt`). */
export type OrganizationChange = { readonly kind: 'rename'; readonly name: string } | { readonly kind: 'delete' };

/** What `mutateMembership` changes: the role, or a removal (→ `removed`, `removedAt`). */
export type MembershipChange = { readonly kind: 'role'; readonly role: OrganizationRole } | { readonly kind: 'remove' };

/** Outcome of `mutateMembership`: the changed row and, when asked for, the target user's epoch revocation. */
export interface MembershipMutation {
  readonly membership: MembershipRecord;
  /** The target user's sessions the epoch advance revoked, sorted (empty without a revocation). */
  readonly revokedSessionIds: readonly string[];
  /** The target user's new session epoch, `null` without a revocation. */
  readonly sessionEpoch: number | null;
}

/** Organization and membership reads (identity-model §9.1). */
export interface IdentityOrganizationReads {
  /** Every membership of the organization in any state, sorted by id (≈ creation order). */
  listMembershipsForOrganization(organizationId: string): Promise<MembershipRecord[]>;
}

/** Organization and membership commands (identity-model §6.1, §9.2), each one transaction. */
export interface IdentityOrganizationCommands {
  /**
   * Inserts the active organization and its creator's active `owner` membership (the creator must
   * be an active user: `not_found` / `invalid_transition`) plus audits. A taken slug fails on the
   * UNIQUE with `unique_constraint` and leaves nothing behind.
   *
   * @example
   * await store.createOrganization({ organization: { id, name, slug }, owner: { id: membershipId, organizationId: id, userId, role: 'owner' }, at, audits });
   */
  createOrganization(input: {
    organization: NewOrganization;
    owner: NewMembership;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<{ organization: OrganizationRecord; membership: MembershipRecord }>>;
  /**
   * CAS on `version` of an `active` organization: rename, or soft delete + audit. Missing →
   * `not_found`, no longer active → `invalid_transition`, another version → `version_conflict`.
   *
   * @example
   * await store.mutateOrganization({ organizationId, expectedVersion: 0, change: { kind: 'rename', name: 'Engines' }, at, audit });
   */
  mutateOrganization(input: {
    organizationId: string;
    expectedVersion: number;
    change: OrganizationChange;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<OrganizationRecord>>;
  /**
   * CAS on `version` of an `active` membership of `organizationId` (an active organization):
   * role change or removal, under `SELECT … FOR UPDATE` of the organization's active owner
   * memberships — demoting or removing the last active owner fails `last_owner` and changes
   * nothing. With `revokeSessions` the target user's `sessionEpoch` advances by one and every
   * active session of that user is revoked with `revokeSessions.reason`, in the same transaction.
   * Audits are written with the change. A membership of another organization → `not_found`, not
   * active → `invalid_transition`, another version → `version_conflict`. A change that makes or
   * unmakes an owner, made by `actorUserId`, re-checks under the owners' locks that the actor is
   * still an active owner (else `not_found`); `null` for a system change.
   *
   * @example
   * await store.mutateMembership({ organizationId, membershipId, expectedVersion: 2, change: { kind: 'role', role: 'admin' }, revokeSessions: { reason: 'organization_privilege_changed' }, actorUserId, at, audits });
   */
  mutateMembership(input: {
    organizationId: string;
    membershipId: string;
    expectedVersion: number;
    change: MembershipChange;
    revokeSessions: { readonly reason: string } | null;
    /** The user making the change (the owner rule is re-checked for them), `null` for the system. */
    actorUserId: string | null;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<MembershipMutation>>;
}
