import type { MembershipRecord, OrganizationRecord, StoredDigest, UserRecord } from './identity-records.js';

/*
 * Records of the RFC 8628 device flow (identity-model §5.5, §9.5): device grants, token families and
 * their access and refresh tokens. Only keyed digests of codes and tokens are stored; the retry
 * window's successor pair is an opaque sealed blob the domain layer encrypts under a key derived
 * from the parent refresh token's secret, which the store never sees.
 */

/** Device grant state (identity-model §5.5). */
export type DeviceGrantState = 'pending' | 'authorized' | 'denied' | 'consumed' | 'expired' | 'cancelled';
/** Token family state (identity-model §5.5). */
export type DeviceTokenFamilyState = 'active' | 'revoked' | 'expired';
/** Device access token state: never rotated, only revoked with its family. */
export type DeviceAccessTokenState = 'active' | 'revoked' | 'expired';
/** Device refresh token state: `rotated` once, replay of a rotated token revokes the family. */
export type DeviceRefreshTokenState = 'active' | 'rotated' | 'revoked' | 'expired';

/** What an approval bound to a grant (all set together, then immutable). */
export interface DeviceGrantAuthorization {
  readonly userId: string;
  readonly organizationId: string;
  readonly membershipId: string;
  /** The membership's `version` at approval, rechecked at the claim. */
  readonly membershipVersion: number;
  readonly authorizedByUserId: string;
  readonly authorizedAt: Date;
  /** ⊆ `requestedCapabilities`, sorted. */
  readonly approvedCapabilities: readonly string[];
}

/** The session that showed the confirmation screen for a grant, and when (approve/deny require it). */
export interface DeviceGrantInspection {
  readonly sessionId: string;
  readonly inspectedAt: Date;
}

/** One device-authorization grant (table `device_grants`). */
export interface DeviceGrantRecord {
  readonly id: string;
  readonly deviceCodeDigest: StoredDigest;
  readonly userCodeDigest: StoredDigest;
  readonly clientId: string;
  readonly clientName: string;
  readonly requestedCapabilities: readonly string[];
  readonly state: DeviceGrantState;
  /** 5..300 seconds; raised by each `slow_down`. */
  readonly intervalSeconds: number;
  readonly pollCount: number;
  readonly lastPolledAt: Date | null;
  readonly expiresAt: Date;
  /** `null` until approved. */
  readonly authorization: DeviceGrantAuthorization | null;
  /** The latest inspection of a pending grant; `null` until inspected. */
  readonly inspection: DeviceGrantInspection | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly version: number;
}

/** A grant to insert as `pending`, version 0. */
export interface NewDeviceGrant {
  readonly id: string;
  readonly deviceCodeDigest: StoredDigest;
  readonly userCodeDigest: StoredDigest;
  readonly clientId: string;
  readonly clientName: string;
  readonly requestedCapabilities: readonly string[];
  /** The configured polling interval (5..300). */
  readonly intervalSeconds: number;
  readonly expiresAt: Date;
}

/** What an exchanged grant delegated (table `device_token_families`). */
export interface DeviceTokenFamilyRecord {
  readonly id: string;
  readonly deviceGrantId: string;
  readonly userId: string;
  readonly organizationId: string;
  readonly membershipId: string;
  readonly membershipVersion: number;
  readonly clientId: string;
  /** The approved scopes, sorted. */
  readonly capabilities: readonly string[];
  readonly state: DeviceTokenFamilyState;
  /** Absolute expiry from the exchange; rotation never extends it. */
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revokedAt: Date | null;
  readonly revokedReason: string | null;
  readonly version: number;
}

/** A device access token (table `device_access_tokens`); its public selector is its id. */
export interface DeviceAccessTokenRecord {
  readonly id: string;
  readonly familyId: string;
  readonly tokenDigest: StoredDigest;
  readonly state: DeviceAccessTokenState;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  readonly version: number;
}

/** A device refresh token (table `device_refresh_tokens`); its public selector is its id. */
export interface DeviceRefreshTokenRecord {
  readonly id: string;
  readonly familyId: string;
  readonly tokenDigest: StoredDigest;
  readonly state: DeviceRefreshTokenState;
  readonly rotationCounter: number;
  /** The successor, set with `consumedAt` when rotated. */
  readonly rotatedToId: string | null;
  readonly consumedAt: Date | null;
  /** End of the retry window while a sealed successor is kept; `null` once it is deleted. */
  readonly retryUntil: Date | null;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  readonly version: number;
}

/** A token to insert (access or refresh): the id is its public selector. */
export interface NewDeviceToken {
  /** UUIDv7, the part before the `.` of the token. */
  readonly id: string;
  readonly tokenDigest: StoredDigest;
  /** At or before the family's expiry. */
  readonly expiresAt: Date;
}

/** The access + refresh token pair issued by a claim or a rotation. */
export interface NewDeviceTokenPair {
  readonly accessToken: NewDeviceToken;
  readonly refreshToken: NewDeviceToken;
}

/** The pair as stored. */
export interface DeviceTokenPair {
  readonly accessToken: DeviceAccessTokenRecord;
  readonly refreshToken: DeviceRefreshTokenRecord;
}

/**
 * Whether a family's delegation still holds (identity-model §5.5): `current` while its user and
 * organization are active and its membership is active at the snapshot version; anything else
 * (role change, removal, suspension) is `membership_changed` and revokes the family.
 */
export type DeviceFamilyStanding = 'current' | 'membership_changed';

/**
 * The one rule for {@link DeviceFamilyStanding}, shared by the store (claim, rotation) and the
 * bearer resolver (access-token use).
 *
 * @example
 * if (deviceFamilyStanding(grant.family, grant) === 'membership_changed') await store.revokeDeviceTokenFamily(...);
 */
export function deviceFamilyStanding(
  snapshot: { readonly membershipId: string; readonly membershipVersion: number },
  current: {
    readonly membership: MembershipRecord | null;
    readonly user: UserRecord;
    readonly organization: OrganizationRecord;
  },
): DeviceFamilyStanding {
  const { membership, user, organization } = current;
  return membership !== null &&
    membership.id === snapshot.membershipId &&
    membership.state === 'active' &&
    membership.version === snapshot.membershipVersion &&
    membership.userId === user.id &&
    membership.organizationId === organization.id &&
    user.state === 'active' &&
    organization.state === 'active'
    ? 'current'
    : 'membership_changed';
}

/**
 * The bearer resolution read of a device access token: the token, its family, and the family's
 * user, organization and membership as they are now, with the {@link DeviceFamilyStanding}.
 */
export interface DeviceAccessGrant {
  readonly accessToken: DeviceAccessTokenRecord;
  readonly family: DeviceTokenFamilyRecord;
  readonly user: UserRecord;
  readonly organization: OrganizationRecord;
  /** `null` when the membership row is gone. */
  readonly membership: MembershipRecord | null;
  readonly standing: DeviceFamilyStanding;
}
