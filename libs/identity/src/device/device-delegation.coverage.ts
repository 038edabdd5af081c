import { resolverGrants, type CapabilityResolver } from '../context/capability-resolver.js';
import type { IdentityPrincipal } from '../context/identity-context.js';
import { IDENTITY_OWNED_CAPABILITIES, roleCapabilities } from '../organizations/capabilities.js';
import type { DeviceGrantAuthorization } from '../store/identity-device.records.js';
import type { IdentityStoreReads } from '../store/identity-store.port.js';

/**
 * Whether the current role and application grants still cover an approved delegation at the
 * device-code exchange (identity-model §5.5 Exchange, "current role + resolver still cover the
 * scopes"): `false` when the bound organization and membership are unchanged but the membership's
 * role capabilities plus the `resolvers`' grants no longer include every approved capability. A
 * changed or inactive organization or membership answers `true`: the store's claim refuses those
 * atomically (membership version and states are checked under its lock).
 *
 * @example
 * if (!(await delegationStillGranted(store, resolvers, grant.authorization!))) await cancelAsDrifted(grant);
 */
export async function delegationStillGranted(
  store: Pick<IdentityStoreReads, 'findOrganization' | 'findMembership'>,
  resolvers: readonly CapabilityResolver[],
  authorization: DeviceGrantAuthorization,
): Promise<boolean> {
  // Without application grants in play the role alone decides, and a role change bumps the
  // membership version the claim checks: nothing to read here.
  const viaResolvers = authorization.approvedCapabilities.some((name) => !IDENTITY_OWNED_CAPABILITIES.has(name));
  if (resolvers.length === 0 || !viaResolvers) return true;
  const [organization, membership] = await Promise.all([
    store.findOrganization(authorization.organizationId),
    store.findMembership(authorization.membershipId),
  ]);
  if (organization === null || organization.state !== 'active') return true;
  if (membership === null || membership.state !== 'active' || membership.version !== authorization.membershipVersion)
    return true;
  const effective = new Set(roleCapabilities(membership.role));
  // The approving user, acting through the delegation being exchanged.
  const principal: IdentityPrincipal = {
    kind: 'user',
    id: authorization.userId,
    assurance: 'device_token',
    authenticationMethod: 'device_token',
    directCapabilities: [],
    roles: [],
  };
  for (const granted of await resolverGrants(resolvers, { principal, organization, membership, role: membership.role }))
    effective.add(granted);
  return authorization.approvedCapabilities.every((capability) => effective.has(capability));
}
