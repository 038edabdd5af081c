import type {
  ScimGroupFilter,
  ScimGroupSortKey,
  ScimListPage,
  ScimListQuery,
  ScimUserFilter,
  ScimUserSortKey,
} from '../scim/filter/scim-filter.ast.js';
import type { AuditEventInput, StoredDigest } from './identity-records.js';
import type {
  ScimConnectionGrant,
  ScimConnectionRecord,
  ScimGroupMember,
  ScimGroupRecord,
  ScimGroupRoleRule,
  ScimTenant,
  ScimUserAttributes,
  ScimUserGroup,
  ScimUserRecord,
} from './identity-scim.records.js';
import type { StoreResult } from './identity-store.port.js';

/** A new connection token (`active`): its id is the public selector. */
export interface NewScimConnectionToken {
  readonly id: string;
  readonly secretDigest: StoredDigest;
}

/**
 * Reads of SCIM (identity-model §9.1). Ids that are not UUIDs match nothing. Every resource read is
 * confined to one tenant (organization + provider key): another tenant's ids are `null`.
 */
export interface IdentityScimReads {
  /** The token (any state) with its connection and organization, or `null`. */
  findScimConnectionGrant(tokenId: string): Promise<ScimConnectionGrant | null>;
  /** Every connection of the organization in any state, oldest first. */
  listScimConnections(organizationId: string): Promise<ScimConnectionRecord[]>;
  findScimConnection(organizationId: string, connectionId: string): Promise<ScimConnectionRecord | null>;
  /** An active (not deleted) SCIM user of the tenant. */
  findScimUser(tenant: ScimTenant, id: string): Promise<ScimUserRecord | null>;
  /**
   * One page of the tenant's active users; default order `createdAt`, then `id`. With
   * `withGroups`, the groups of the page's users too (the read-only `groups` attribute, as
   * `listScimUserGroups` answers it), read by the same statement; else `groups` is empty.
   */
  queryScimUsers(
    tenant: ScimTenant,
    query: ScimListQuery<ScimUserFilter, ScimUserSortKey>,
    withGroups?: boolean,
  ): Promise<ScimListPage<ScimUserRecord> & { readonly groups: readonly ScimUserGroup[] }>;
  /** An active group of the tenant. */
  findScimGroup(tenant: ScimTenant, id: string): Promise<ScimGroupRecord | null>;
  queryScimGroups(
    tenant: ScimTenant,
    query: ScimListQuery<ScimGroupFilter, ScimGroupSortKey>,
  ): Promise<ScimListPage<ScimGroupRecord>>;
  /** Members of the given groups of the tenant, ordered by group, then member userName. */
  listScimGroupMembers(tenant: ScimTenant, groupIds: readonly string[]): Promise<ScimGroupMember[]>;
  /** Groups of the given users of the tenant (the read-only `groups` attribute). */
  listScimUserGroups(tenant: ScimTenant, userIds: readonly string[]): Promise<ScimUserGroup[]>;
  /**
   * The stored outcome of an idempotent request, read before the request's own reads (a replayed
   * DELETE must not answer 404, a replayed `If-Match` write not 412): the first commit when the
   * request matches, `'conflict'` when the key was used for another request, `null` when new.
   */
  findScimReplay(tenant: ScimTenant, receipt: ScimReceiptInput): Promise<ScimBatchResult | 'conflict' | null>;
}

/** One step of a group change, applied in order under the group's row lock. Unknown member ids → `invalid_transition`. */
export type ScimGroupStep =
  | { readonly kind: 'rename'; readonly displayName: string }
  | { readonly kind: 'externalId'; readonly externalId: string | null }
  /** Union: members already there are skipped. */
  | { readonly kind: 'add'; readonly memberIds: readonly string[] }
  /** Exact: only these; members not there are skipped. */
  | { readonly kind: 'remove'; readonly memberIds: readonly string[] }
  | { readonly kind: 'replaceMembers'; readonly memberIds: readonly string[] };

/**
 * The one mutation of a SCIM request. `expectedVersion` is a compare-and-set on the resource's
 * version (a mismatch → `version_conflict`); `null` means apply to whatever version is current
 * (the row is locked first).
 */
export type ScimMutation =
  | {
      readonly kind: 'createUser';
      readonly scimUserId: string;
      /** The new identity user's id and its membership's id (both UUIDv7). */
      readonly userId: string;
      readonly membershipId: string;
      /** The identity user's display name (1..200). */
      readonly userDisplayName: string;
      readonly attributes: ScimUserAttributes;
    }
  | {
      readonly kind: 'replaceUser';
      readonly scimUserId: string;
      readonly expectedVersion: number | null;
      readonly userDisplayName: string;
      readonly attributes: ScimUserAttributes;
      /**
       * `true` when the caller read the user at `expectedVersion` (not `null`) and `attributes.emails`
       * equals what it read: the store keeps the email rows as they are. Ignored without a version.
       */
      readonly emailsUnchanged?: boolean;
    }
  | { readonly kind: 'deleteUser'; readonly scimUserId: string; readonly expectedVersion: number | null }
  | {
      readonly kind: 'createGroup';
      readonly groupId: string;
      readonly displayName: string;
      readonly externalId: string | null;
      readonly memberIds: readonly string[];
    }
  | {
      readonly kind: 'changeGroup';
      readonly groupId: string;
      readonly expectedVersion: number | null;
      readonly steps: readonly ScimGroupStep[];
    }
  | { readonly kind: 'deleteGroup'; readonly groupId: string; readonly expectedVersion: number | null };

/** The idempotency receipt of a request that carried `Idempotency-Key`. */
export interface ScimReceiptInput {
  /** A UUID derived from the tenant and the key (the key itself is never stored). */
  readonly operationId: string;
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly precondition: string | null;
  /** Unpadded base64url SHA-256 of the canonical request (method, path, precondition, body). */
  readonly requestDigest: string;
}

/** Builds one audit event of the batch (ids and request facts come from the service's builder). */
export type ScimAuditFactory = (facts: {
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string } | null;
  readonly outcome?: 'succeeded' | 'denied' | 'failed';
}) => AuditEventInput;

/** What `applyScimBatch` committed (or, on a replayed key, what the first commit answered). */
export interface ScimBatchResult {
  readonly replayed: boolean;
  readonly status: number;
  readonly resourceType: 'user' | 'group';
  readonly resourceId: string;
  /** The resource version after the mutation (`null` after a delete). */
  readonly version: number | null;
  /** The SCIM user as this batch wrote it (`createUser`, `replaceUser`; absent on a replay). */
  readonly user?: ScimUserRecord;
  /** The groups of {@link user} as this batch saw them (with `user`; none after a create). */
  readonly groups?: readonly ScimUserGroup[];
}

/**
 * SCIM commands (identity-model §5.10, §9.2): each call is one transaction.
 *
 * `applyScimBatch`: under `pg_advisory_xact_lock` on the receipt's operation id (when a receipt is
 * given): a receipt with the same digest → `{ replayed: true, ... }` as first committed; with a
 * different digest → `idempotency_conflict`. Otherwise applies the mutation, then its effects on
 * the tenant memberships: a created user gets a new identity user + membership (role from its
 * groups, default `viewer`; `removed` when created inactive); deactivation or delete → membership
 * `removed`; reactivation → `active`; group changes recompute each affected member's role as the
 * highest role of `groupRoles` matched by their groups (owners keep `owner`). A membership that
 * leaves `active` or changes role revokes that user's active federated sessions of this
 * organization and device token families of this organization (with their tokens) — never the
 * user epoch, passkey sessions or other tenants. The last-owner rule is checked on the final
 * state (`last_owner`). Child audits (`user.created`, `membership.created`, `membership.changed`,
 * `session.revoked`, `device_token.revoked`) and the outer `scim.mutation_applied` (target
 * `scim_user`) or `scim.group_changed` (target `scim_group`) are written in the transaction, then
 * the receipt. Failures: `not_found` (resource of the tenant missing or deleted),
 * `invalid_transition` (a member id that is no active user of the tenant), `unique_constraint`
 * (userName / externalId / displayName taken in the tenant), `version_conflict`, `last_owner`.
 */
export interface IdentityScimCommands {
  applyScimBatch(input: {
    readonly tenant: ScimTenant;
    readonly receipt: ScimReceiptInput | null;
    readonly mutation: ScimMutation;
    readonly groupRoles: readonly ScimGroupRoleRule[];
    readonly at: Date;
    readonly audit: ScimAuditFactory;
  }): Promise<StoreResult<ScimBatchResult>>;
  /** An active connection + its rules + its first active token + audit; an active providerName taken → `unique_constraint`. */
  createScimConnection(input: {
    readonly connection: {
      readonly id: string;
      readonly organizationId: string;
      readonly providerName: string;
      readonly groupRoles: readonly ScimGroupRoleRule[];
    };
    readonly token: NewScimConnectionToken;
    readonly at: Date;
    readonly audit: AuditEventInput;
  }): Promise<StoreResult<ScimConnectionRecord>>;
  /** Active connection of the organization → `revoked`, every token → `revoked` + audit (else `not_found` / `invalid_transition`). */
  revokeScimConnection(input: {
    readonly organizationId: string;
    readonly connectionId: string;
    readonly at: Date;
    readonly audit: AuditEventInput;
  }): Promise<StoreResult<ScimConnectionRecord>>;
  /**
   * Under the connection's row lock: earlier `rotated` tokens → `revoked`, the `active` token →
   * `rotated` (`rotatedAt` = at; it authenticates for 10 more minutes), the new token `active` +
   * audit. Revoked connection → `invalid_transition`.
   */
  rotateScimConnectionToken(input: {
    readonly organizationId: string;
    readonly connectionId: string;
    readonly token: NewScimConnectionToken;
    readonly at: Date;
    readonly audit: AuditEventInput;
  }): Promise<StoreResult<ScimConnectionRecord>>;
}

/** The SCIM slice of the `IdentityStore` port. */
export type IdentityScimPort = IdentityScimReads & IdentityScimCommands;
