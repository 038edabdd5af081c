import type { OrganizationRecord, StoredDigest } from './identity-records.js';

/** Roles a SCIM group mapping may grant (identity-model §5.10: `owner` is never granted by SCIM). */
export type ScimRole = 'admin' | 'publisher' | 'viewer';

/** One group-to-role rule of a connection: a group matched by display name (case-insensitive) or external id (exact). */
export interface ScimGroupRoleRule {
  readonly match: { readonly displayName: string } | { readonly externalId: string };
  readonly role: ScimRole;
}

/** The tenant a SCIM request acts in: the organization and the provider key `<providerName>:<organizationId>`. */
export interface ScimTenant {
  readonly organizationId: string;
  readonly providerName: string;
  /** `<providerName>:<organizationId>` (identity-model §5.10). */
  readonly provider: string;
}

/** SCIM `name` complex attribute (every sub-attribute optional). */
export interface ScimName {
  readonly formatted: string | null;
  readonly familyName: string | null;
  readonly givenName: string | null;
  readonly middleName: string | null;
  readonly honorificPrefix: string | null;
  readonly honorificSuffix: string | null;
}

/** One value of the multi-valued `emails` attribute. */
export interface ScimEmail {
  readonly value: string;
  readonly type: string | null;
  readonly primary: boolean;
}

/** The stored sub-attributes of `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`. */
export interface ScimEnterpriseUser {
  readonly employeeNumber: string | null;
  readonly costCenter: string | null;
  readonly organization: string | null;
  readonly division: string | null;
  readonly department: string | null;
}

/**
 * Every User attribute this server stores (relational columns, identity-model §9.5). Attributes of
 * the User / enterprise schemas not listed here are accepted and ignored; `password` is discarded.
 */
export interface ScimUserAttributes {
  readonly userName: string;
  readonly externalId: string | null;
  readonly displayName: string | null;
  readonly nickName: string | null;
  readonly title: string | null;
  readonly userType: string | null;
  readonly preferredLanguage: string | null;
  readonly locale: string | null;
  readonly timezone: string | null;
  readonly active: boolean;
  readonly name: ScimName;
  /** At most 20 values; at most one `primary`. */
  readonly emails: readonly ScimEmail[];
  readonly enterprise: ScimEnterpriseUser;
}

/** A provisioned SCIM user (table `scim_users`, active rows only are ever returned). */
export interface ScimUserRecord extends ScimUserAttributes {
  /** The SCIM resource id (UUIDv7), distinct from the identity user id. */
  readonly id: string;
  readonly organizationId: string;
  readonly provider: string;
  /** The identity user this SCIM user provisions (a new stable user per SCIM create). */
  readonly userId: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Starts at 1 (ETag `W/"1"`), +1 per change. */
  readonly version: number;
}

/** A SCIM group (table `scim_groups`, active rows only are ever returned). */
export interface ScimGroupRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly provider: string;
  readonly externalId: string | null;
  readonly displayName: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Starts at 1, +1 per change. */
  readonly version: number;
}

/** One member of a group: the member's SCIM user id and the member's userName (its `display`). */
export interface ScimGroupMember {
  readonly groupId: string;
  readonly userId: string;
  readonly display: string;
}

/** One group of a user (the read-only `groups` attribute of a User). */
export interface ScimUserGroup {
  readonly userId: string;
  readonly groupId: string;
  readonly display: string;
}

/** State of an organization-managed SCIM connection. */
export type ScimConnectionState = 'active' | 'revoked';

/** A SCIM connection of one organization (table `scim_connections` + `scim_connection_group_roles`). */
export interface ScimConnectionRecord {
  readonly id: string;
  readonly organizationId: string;
  /** 1..64 of `[a-z0-9_-]`; one active connection per (organization, providerName). */
  readonly providerName: string;
  /** In declaration order. */
  readonly groupRoles: readonly ScimGroupRoleRule[];
  readonly state: ScimConnectionState;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revokedAt: Date | null;
  /** When the current token was issued (creation or the last rotation). */
  readonly tokenIssuedAt: Date;
  readonly version: number;
}

/** State of a connection token: `rotated` tokens keep authenticating for the rotation overlap (10 min). */
export type ScimTokenState = 'active' | 'rotated' | 'revoked';

/** A connection bearer token: `<tokenId UUIDv7>.<b64url(32 B)>`, only its keyed digest is stored. */
export interface ScimConnectionTokenRecord {
  readonly id: string;
  readonly connectionId: string;
  readonly secretDigest: StoredDigest;
  readonly state: ScimTokenState;
  readonly createdAt: Date;
  readonly rotatedAt: Date | null;
}

/** What a SCIM request's authentication reads in one round trip. */
export interface ScimConnectionGrant {
  readonly connection: ScimConnectionRecord;
  readonly token: ScimConnectionTokenRecord;
  readonly organization: OrganizationRecord;
}
