import type {
  AuditEventInput,
  AuditEventRecord,
  InvitationRecord,
  MembershipRecord,
  OrganizationRole,
} from './identity-records.js';
import type { StoreResult } from './identity-store.port.js';

/**
 * Position of a keyset page of audit events (identity-model §8.3): the last event of the previous
 * page. The next page holds events strictly older, or of the same instant with a smaller id.
 */
export interface AuditEventPosition {
  readonly occurredAt: Date;
  readonly id: string;
}

/** One page of an organization's audit stream, newest first. */
export interface AuditEventPage {
  readonly events: AuditEventRecord[];
  /** `true` when older events exist after the last one of this page. */
  readonly hasMore: boolean;
}

/** How {@link IdentityInvitationAuditReads.exportAuditEventLines} frames each event. */
export type AuditExportLineFormat = 'ndjson' | 'csv';

/**
 * One keyset batch of an organization's audit export, already encoded: the lines of
 * `auditExportLines(events, format)` (the reference definition, `@tessera/identity`) for the
 * events route 29 would list at the same position, newest first.
 */
export interface AuditExportBatch {
  /**
   * The batch's lines, each with its terminator (`\n` NDJSON, CRLF CSV), in order, split between
   * one or more texts at line ends (an adapter keeps each text small: JavaScript engines build and
   * collect huge strings slowly); `[]` when empty. Joined, they are the batch's lines.
   */
  readonly texts: readonly string[];
  /** How many events {@link text} holds. */
  readonly count: number;
  /** The last event written (the next batch starts after it); absent when {@link count} is 0. */
  readonly last?: AuditEventPosition;
  /** `true` when older events exist after {@link last}. */
  readonly hasMore: boolean;
}

/** What one bounded retention purge did (identity-model §8.4). */
export interface AuditPurgeResult {
  readonly deletedCount: number;
  /** `true` when events older than the bound remain (call again). */
  readonly hasMore: boolean;
}

/** The invitation an existing user accepts with {@link IdentityInvitationAuditCommands.createMembership}. */
export interface InvitationAcceptance {
  readonly invitationId: string;
  /** The version the caller read; a mismatch → `version_conflict`. */
  readonly expectedVersion: number;
}

/** A membership created by accepting an invitation (`userId` must own the invitation's email). */
export interface NewAcceptedMembership {
  readonly id: string;
  readonly organizationId: string;
  readonly userId: string;
  readonly role: OrganizationRole;
}

/** Reads of the invitation and audit features (identity-model §9.1). */
export interface IdentityInvitationAuditReads {
  /** Every invitation of the organization in any state, by id (creation order). */
  listInvitationsForOrganization(organizationId: string): Promise<InvitationRecord[]>;
  /**
   * One keyset page of the organization's audit events, newest first by (`occurredAt` desc, `id`
   * desc); `after` is the last event of the previous page (identity-model §8.3).
   */
  listAuditEventsForOrganization(
    organizationId: string,
    page: { readonly limit: number; readonly after?: AuditEventPosition },
  ): Promise<AuditEventPage>;
  /**
   * The batch of `listAuditEventsForOrganization(organizationId, { limit, after })` as export lines
   * (the audit export, identity-http §4.4): byte for byte `auditExportLines(page.events, format)`,
   * with the same `hasMore`. An adapter may build the lines in the database; the conformance suite
   * compares them with the reference encoding.
   */
  exportAuditEventLines(
    organizationId: string,
    batch: { readonly limit: number; readonly after?: AuditEventPosition; readonly format: AuditExportLineFormat },
  ): Promise<AuditExportBatch>;
  /**
   * Positions ahead in route 29's order (`occurredAt` desc, `id` desc), so a reader can start later
   * batches before earlier ones arrive (the audit export reads batches concurrently): the
   * positions of the `step`-th, 2·`step`-th, … event after `after` (from the newest event when
   * absent), at most `count` of them, fewer at the end of the stream. Each is the `last` of the
   * `limit: step` batch that starts at the previous one. `[]` for an unknown or malformed
   * organization.
   */
  findAuditEventPositions(
    organizationId: string,
    query: { readonly after?: AuditEventPosition; readonly step: number; readonly count: number },
  ): Promise<AuditEventPosition[]>;
  /**
   * Deletes at most `batchSize` events with `occurredAt` strictly before `before`, oldest first
   * (identity-model §8.4); safe to repeat and to run concurrently.
   */
  purgeAuditEvents(input: { readonly before: Date; readonly batchSize: number }): Promise<AuditPurgeResult>;
}

/** Invitation revocation and acceptance by an existing account (identity-model §5.4, §9.2). */
export interface IdentityInvitationAuditCommands {
  /**
   * CAS stored `pending` → `revoked` + audit (an expired invitation is still stored `pending` and
   * may be revoked, freeing its email). Missing or another organization's → `not_found`; no longer
   * pending → `invalid_transition`; another version → `version_conflict`.
   */
  mutateInvitation(input: {
    invitationId: string;
    organizationId: string;
    expectedVersion: number;
    change: { readonly kind: 'revoke' };
    /** The revoking user: an `owner` invitation re-checks their owner membership under lock (else `not_found`). */
    actorUserId: string | null;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<InvitationRecord>>;
  /**
   * Inserts the membership while accepting the invitation, under `FOR UPDATE` on the invitation:
   * its version, `pending`, unexpired at `at`, organization and role must match and the user's
   * primary email must equal the invitation email case-insensitively (else `invalid_transition`,
   * or `not_found` / `version_conflict`); invitation → `accepted` + audits. A removed membership
   * of the user in the organization is reactivated instead (same id, the invited role, `active`,
   * `removedAt` cleared): the `membership.created` audit of `membership.id` then targets that
   * membership with reasonCode `rejoined`. An active or suspended membership →
   * `unique_constraint`. All or nothing.
   */
  createMembership(input: {
    membership: NewAcceptedMembership;
    invitation: InvitationAcceptance;
    at: Date;
    audits: readonly AuditEventInput[];
  }): Promise<StoreResult<{ membership: MembershipRecord; invitation: InvitationRecord }>>;
}

/** The invitation and audit part of the `IdentityStore` port. */
export type IdentityInvitationAuditPort = IdentityInvitationAuditReads & IdentityInvitationAuditCommands;
