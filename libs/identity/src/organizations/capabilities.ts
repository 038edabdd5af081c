import type { OrganizationRole } from '../store/identity-records.js';

/** Role ranks (identity-model §6.1). */
export const ROLE_RANK: Readonly<Record<OrganizationRole, number>> = Object.freeze({
  owner: 3,
  admin: 2,
  publisher: 1,
  viewer: 0,
});

const ALL: readonly OrganizationRole[] = ['owner', 'admin', 'publisher', 'viewer'];
const MANAGERS: readonly OrganizationRole[] = ['owner', 'admin'];
const OWNER: readonly OrganizationRole[] = ['owner'];

/** The capability matrix of identity-model §6.2: which roles grant each identity-owned capability. */
export const ROLE_CAPABILITY_MATRIX: Readonly<Record<string, readonly OrganizationRole[]>> = Object.freeze({
  'identity.profile': ALL,
  'identity.organizations': ALL,
  'organization.read': ALL,
  'membership.read': ALL,
  'organization.update': MANAGERS,
  'organization.delete': OWNER,
  'organization.transfer_ownership': OWNER,
  'membership.invite': MANAGERS,
  'membership.update': MANAGERS,
  'membership.remove': MANAGERS,
  'audit.read': MANAGERS,
  'service_identity.read': MANAGERS,
  'service_identity.manage': MANAGERS,
  'device_grant.approve': MANAGERS,
  'external_identity.manage': MANAGERS,
  'scim.manage': MANAGERS,
});

/** Identity-owned capabilities: the 16 of the matrix plus the platform-level `identity.account.recover`. */
export const IDENTITY_OWNED_CAPABILITIES: ReadonlySet<string> = new Set([
  ...Object.keys(ROLE_CAPABILITY_MATRIX),
  'identity.account.recover',
]);

/** Capability names: 3..200 chars, dotted lower-case segments (identity-model §4). */
export const CAPABILITY_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** `true` for a syntactically valid capability name. */
export function isCapabilityName(value: string): boolean {
  return value.length >= 3 && value.length <= 200 && CAPABILITY_NAME.test(value);
}

/** The capabilities a role grants, sorted. */
export function roleCapabilities(role: OrganizationRole): string[] {
  return Object.entries(ROLE_CAPABILITY_MATRIX)
    .filter(([, roles]) => roles.includes(role))
    .map(([capability]) => capability)
    .sort();
}
