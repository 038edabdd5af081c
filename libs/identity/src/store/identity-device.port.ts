import type {
  DeviceAccessGrant,
  DeviceAccessTokenRecord,
  DeviceGrantRecord,
  DeviceRefreshTokenRecord,
  DeviceTokenFamilyRecord,
  DeviceTokenPair,
  NewDeviceGrant,
  NewDeviceTokenPair,
} from './identity-device.records.js';
import type { AuditEventInput, StoredDigest } from './identity-records.js';
import type { StoreResult } from './identity-store.port.js';

/** Reads of the device flow (identity-model §9.1). Ids and selectors that are not UUIDs match nothing. */
export interface IdentityDeviceReads {
  findDeviceGrant(id: string): Promise<DeviceGrantRecord | null>;
  /** Exact match on algorithm, encoded value and key version (the caller tries each key of the ring). */
  findDeviceGrantByDeviceCodeDigest(digest: StoredDigest): Promise<DeviceGrantRecord | null>;
  /** Exact match on algorithm, encoded value and key version (the caller tries each key of the ring). */
  findDeviceGrantByUserCodeDigest(digest: StoredDigest): Promise<DeviceGrantRecord | null>;
  findDeviceTokenFamily(id: string): Promise<DeviceTokenFamilyRecord | null>;
  /** The access token whose id is `selector` (the part before the `.`). */
  findDeviceAccessTokenBySelector(selector: string): Promise<DeviceAccessTokenRecord | null>;
  /** The refresh token whose id is `selector` (the part before the `.`). */
  findDeviceRefreshTokenBySelector(selector: string): Promise<DeviceRefreshTokenRecord | null>;
  /**
   * The per-request bearer read, one round trip: the access token, its family, and the family's
   * user, organization and membership now, with their standing. The caller checks the digest
   * (constant time), states and expiries; a `membership_changed` standing revokes the family
   * ({@link IdentityDeviceCommands.revokeDeviceTokenFamily}, reason `membership_authorization_changed`).
   *
   * @example
   * const grant = await store.findDeviceAccessGrant(selector);
   * if (grant?.standing === 'membership_changed') await store.revokeDeviceTokenFamily({ ... });
   */
  findDeviceAccessGrant(selector: string): Promise<DeviceAccessGrant | null>;
}

/** The answer of a poll (RFC 8628 §3.5), decided under the grant's row lock. */
export type DevicePollOutcome =
  /** `pending` and not early: poll counted. */
  | 'authorization_pending'
  /** `pending` and earlier than `lastPolledAt + interval`: poll counted, interval raised and stored. */
  | 'slow_down'
  /** `authorized` and unexpired: nothing written, claim it next. */
  | 'authorized'
  /** `denied`: nothing written. */
  | 'access_denied'
  /** At or after expiry (`pending`/`authorized` → `expired`, audited), or already `expired`. */
  | 'expired_token'
  /** Another `client_id`, or `consumed` / `cancelled`: nothing written. */
  | 'invalid_grant';

/** What a refresh presentation did, for its audit events. */
export type DeviceRefreshEvent =
  | { readonly kind: 'refreshed'; readonly family: DeviceTokenFamilyRecord; readonly successor: DeviceTokenPair }
  | { readonly kind: 'retried'; readonly family: DeviceTokenFamilyRecord; readonly successor: DeviceTokenPair }
  | { readonly kind: 'replay_detected'; readonly family: DeviceTokenFamilyRecord }
  | { readonly kind: 'membership_changed'; readonly family: DeviceTokenFamilyRecord };

/** A successful refresh presentation. */
export type DeviceRefreshOutcome =
  /** The parent was rotated into `successor` (one rotation row). */
  | {
      readonly kind: 'rotated';
      readonly family: DeviceTokenFamilyRecord;
      readonly previous: DeviceRefreshTokenRecord;
      readonly successor: DeviceTokenPair;
    }
  /**
   * A retry of an already rotated parent inside its window while its successor is unused: the
   * sealed successor stored by that rotation, byte for byte, and the successor's rows. Nothing
   * rotated.
   */
  | {
      readonly kind: 'retried';
      readonly family: DeviceTokenFamilyRecord;
      readonly sealedSuccessor: Uint8Array;
      readonly successor: DeviceTokenPair;
    };

/** How a family to revoke is named: by id, or by one of its tokens (selector + digest must match). */
export type DeviceFamilyReference =
  | { readonly familyId: string }
  | { readonly refreshToken: { readonly selector: string; readonly tokenDigest: StoredDigest } }
  | { readonly accessToken: { readonly selector: string; readonly tokenDigest: StoredDigest } };

/**
 * Device grant and token family commands (identity-model §5.5, §9.2), each one READ COMMITTED
 * transaction under row locks, with its audit events in the same transaction. Every race has one
 * winner; losers get a failure code, never partial state. Codes: `not_found` (unknown grant,
 * digest or token), `invalid_transition` (a state, client, scope, inspection or membership
 * precondition fails), `challenge_expired` (a grant past its expiry on the approval path),
 * `replay_detected` (a rotated refresh token presented outside its retry window: the family was
 * revoked), `unique_constraint` (a digest or selector already taken), `version_conflict`
 * (retryable: a same-id insert race) and `unavailable` / `internal`.
 */
export interface IdentityDeviceCommands {
  /**
   * Inserts a `pending` grant (version 0, `pollCount` 0) with both code digests reserved in one
   * namespace, plus its audit (`device_grant.changed`, `device_authorization_started`). A same-id
   * insert race: one winner, the others `version_conflict` (retryable); a code digest taken by
   * any other grant (either kind) → `unique_constraint`. Scopes are stored sorted.
   *
   * @example
   * const grant = await store.createDeviceGrant({ grant: { id, deviceCodeDigest, userCodeDigest, clientId: 'tessera-cli', clientName: 'Tessera CLI', requestedCapabilities: ['identity.profile'], intervalSeconds: 5, expiresAt }, at, audit });
   */
  createDeviceGrant(input: {
    grant: NewDeviceGrant;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<DeviceGrantRecord>>;

  /**
   * One poll of the device-code holder, decided under the grant's row lock ({@link DevicePollOutcome}).
   * A `pending` poll counts (`pollCount` + 1, `lastPolledAt` = `at`); a poll earlier than
   * `lastPolledAt + intervalSeconds` also raises the stored interval by 5 (cap 300) and answers
   * `slow_down` (the first poll is never early). Another `client_id` answers `invalid_grant` and
   * leaves the grant untouched. `audits` is called only for an outcome that writes
   * (`authorization_pending`, `slow_down`, and the `expired_token` transition). Unknown digest →
   * `not_found`.
   *
   * @example
   * const poll = await store.recordDeviceGrantPoll({ deviceCodeDigest, clientId, at, audits: ({ outcome, grant }) => [pollAudit(outcome, grant)] });
   * if (poll.ok && poll.value.outcome === 'authorized') await store.claimDeviceGrant({ ... });
   */
  recordDeviceGrantPoll(input: {
    deviceCodeDigest: StoredDigest;
    clientId: string;
    at: Date;
    audits: (event: { outcome: DevicePollOutcome; grant: DeviceGrantRecord }) => readonly AuditEventInput[];
  }): Promise<StoreResult<{ outcome: DevicePollOutcome; grant: DeviceGrantRecord }>>;

  /**
   * Records that `sessionId` shows the confirmation screen of a `pending`, unexpired grant
   * (`inspection` = session + `at`, version + 1; a later inspection replaces it). No audit.
   * `not_found`, `challenge_expired` (at or after expiry), `invalid_transition` (not pending).
   *
   * @example
   * const shown = await store.inspectDeviceGrant({ userCodeDigest, sessionId, at });
   */
  inspectDeviceGrant(input: {
    userCodeDigest: StoredDigest;
    sessionId: string;
    at: Date;
  }): Promise<StoreResult<DeviceGrantRecord>>;

  /**
   * `pending` → `authorized`, binding the approver's membership in `organizationId` (locked
   * `for share`; its version is snapshotted): only when `sessionId` inspected the grant at or after
   * `inspectedSince` (the caller passes `at − 10 min`), the grant is unexpired, `approvedCapabilities`
   * ⊆ requested (stored sorted) and the user, organization and membership are active. Audit
   * `device_authorization_approved` (its empty `target` and `organizationId` completed with the
   * grant). `not_found` (grant, or no active membership),
   * `challenge_expired`, `invalid_transition`.
   *
   * @example
   * await store.authorizeDeviceGrant({ userCodeDigest, sessionId, inspectedSince: new Date(at.getTime() - 600_000), userId, organizationId, approvedCapabilities, at, audit });
   */
  authorizeDeviceGrant(input: {
    userCodeDigest: StoredDigest;
    sessionId: string;
    inspectedSince: Date;
    userId: string;
    organizationId: string;
    approvedCapabilities: readonly string[];
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<DeviceGrantRecord>>;

  /**
   * `pending` → `denied` under the same inspection rule as approval; audit
   * `device_authorization_denied` (its empty `target` completed with the grant). `not_found`, `challenge_expired`, `invalid_transition`.
   *
   * @example
   * await store.denyDeviceGrant({ userCodeDigest, sessionId, inspectedSince, at, audit });
   */
  denyDeviceGrant(input: {
    userCodeDigest: StoredDigest;
    sessionId: string;
    inspectedSince: Date;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<DeviceGrantRecord>>;

  /**
   * The device-code holder cancels: `pending` or `authorized` (unexpired) → `cancelled`; audit
   * `device_authorization_cancelled` (its empty `target`, and for an authorized grant its empty
   * `organizationId`, completed with the grant). `not_found`, `invalid_transition`.
   *
   * @example
   * await store.cancelDeviceGrant({ deviceCodeDigest, at, audit });
   */
  cancelDeviceGrant(input: {
    deviceCodeDigest: StoredDigest;
    at: Date;
    audit: AuditEventInput;
  }): Promise<StoreResult<DeviceGrantRecord>>;

  /**
   * THE claim: exchanges an `authorized`, unexpired grant of `clientId` exactly once, in one
   * transaction under the grant's row lock: grant → `consumed`, a new `active` family (the
   * approved scopes, `familyExpiresAt`), the first access token and refresh token (counter 0),
   * their selector/digest reservations, audit `device_token.issued`. Of any number of concurrent
   * claims exactly one wins; the others get `invalid_transition` (the grant is no longer
   * `authorized`). The membership snapshot is rechecked (locked `for share`): a changed standing
   * commits grant → `cancelled` with the `membership_changed` audits and answers
   * `invalid_transition`. Token expiries must not pass the family's (else `invalid_transition`).
   * `not_found` for an unknown digest, `invalid_transition` for another client.
   *
   * @example
   * const claimed = await store.claimDeviceGrant({ deviceCodeDigest, clientId, familyId, familyExpiresAt, tokens, at, audits: (event) => [issuedAudit(event)] });
   */
  claimDeviceGrant(input: {
    deviceCodeDigest: StoredDigest;
    clientId: string;
    familyId: string;
    familyExpiresAt: Date;
    tokens: NewDeviceTokenPair;
    at: Date;
    audits: (
      event:
        | { readonly kind: 'issued'; readonly grant: DeviceGrantRecord; readonly family: DeviceTokenFamilyRecord }
        | { readonly kind: 'membership_changed'; readonly grant: DeviceGrantRecord },
    ) => readonly AuditEventInput[];
  }): Promise<StoreResult<{ grant: DeviceGrantRecord; family: DeviceTokenFamilyRecord; tokens: DeviceTokenPair }>>;

  /**
   * One presentation of refresh token `selector` (its digest must match) by `clientId`, under the
   * family's row lock, then the token's:
   *
   * - `active`, unexpired, family active and unexpired, standing `current` → rotated: old →
   *   `rotated` (`rotatedToId`, `consumedAt` = `at`), `successor` inserted (counter + 1, expiries
   *   ≤ the family's), and when `sealedSuccessor` is given with `retryUntil` > `at` the blob is
   *   kept on the parent until `retryUntil`; the parent's own sealed blob (from the rotation that
   *   created it) is deleted since its successor is now used. Event `refreshed`.
   * - `rotated`, its blob kept and `at` < `retryUntil`, its successor still `active` → `retried`:
   *   the stored blob byte for byte, nothing rotated. Event `retried`.
   * - any other presentation of a `rotated` token → replay: family → `revoked`
   *   (`refresh_token_replay`), every active access and refresh token → `revoked`, every sealed
   *   blob of the family deleted, event `replay_detected`; committed, then `replay_detected`.
   * - a changed standing → the same family revocation (`membership_authorization_changed`), event
   *   `membership_changed`; committed, then `invalid_transition`.
   *
   * Another client, a revoked/expired token or family, or an expired token → `invalid_transition`
   * with nothing written; unknown selector or digest → `not_found`. Concurrent presentations of one
   * parent inside the window: one rotation, every other one `retried` with the same blob.
   *
   * @example
   * const refreshed = await store.rotateDeviceRefreshToken({ selector, tokenDigest, clientId, successor, sealedSuccessor, retryUntil, at, audits });
   * if (refreshed.ok && refreshed.value.kind === 'retried') pair = open(refreshed.value.sealedSuccessor, parentSecret);
   */
  rotateDeviceRefreshToken(input: {
    selector: string;
    tokenDigest: StoredDigest;
    clientId: string;
    successor: NewDeviceTokenPair;
    /** The successor pair sealed by the domain under a key derived from the parent's secret; `null` disables the window. */
    sealedSuccessor: Uint8Array | null;
    /** `at + refreshRetrySeconds`; `null` with `sealedSuccessor` `null`. */
    retryUntil: Date | null;
    at: Date;
    audits: (event: DeviceRefreshEvent) => readonly AuditEventInput[];
  }): Promise<StoreResult<DeviceRefreshOutcome>>;

  /**
   * Revokes a family (RFC 7009 `/oauth/revoke`, drift at access-token use, administration):
   * `active` family → `revoked` with `reason`, every active access and refresh token → `revoked`,
   * every sealed blob deleted, audit; `changed: false` and no audit when it was already revoked
   * or expired. A token reference must match selector and digest; with `clientId` the family
   * must belong to that client. Else `not_found` (so a foreign token changes nothing).
   *
   * @example
   * await store.revokeDeviceTokenFamily({ family: { refreshToken: { selector, tokenDigest } }, clientId, reason: 'client_revocation', at, audit });
   */
  revokeDeviceTokenFamily(input: {
    family: DeviceFamilyReference;
    clientId: string | null;
    reason: 'client_revocation' | 'membership_authorization_changed' | 'refresh_token_replay' | 'administrative';
    at: Date;
    audit: (family: DeviceTokenFamilyRecord) => AuditEventInput;
  }): Promise<StoreResult<{ family: DeviceTokenFamilyRecord; changed: boolean }>>;
}

/** The device slice of the `IdentityStore` port. */
export type IdentityDevicePort = IdentityDeviceReads & IdentityDeviceCommands;
