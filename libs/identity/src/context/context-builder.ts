import { roleCapabilities } from '../organizations/capabilities.js';
import type { SessionRecord, UserRecord } from '../store/identity-records.js';
import type { IdentityStoreReads } from '../store/identity-store.port.js';
import { resolverGrants, resolverInput, type CapabilityResolver } from './capability-resolver.js';
import type { IdentityContext, IdentityPrincipal } from './identity-context.js';

const ORGANIZATION_PATH = /^\/identity\/v1\/organizations\/([^/]+)(?:\/|$)/;

/** The organization id an identity route names (segment 4 of `/identity/v1/organizations/{id}/...`). */
export function organizationIdFromIdentityPath(path: string): string | undefined {
  return ORGANIZATION_PATH.exec(path)?.[1];
}

/**
 * Builds the context of a user session: principal (roles always empty), the route's organization
 * and the caller's membership when both are active, and effective capabilities = role
 * capabilities + resolver grants minus identity-owned ones. Restricted sessions get no
 * organization data and no capabilities.
 *
 * @example
 * const context = await buildSessionContext(store, resolvers, { session, user, organizationId, requestId, requestTime });
 */
export async function buildSessionContext(
  store: Pick<IdentityStoreReads, 'findOrganization' | 'findMembershipForUser'>,
  resolvers: readonly CapabilityResolver[],
  input: {
    session: SessionRecord;
    user: UserRecord;
    organizationId: string | undefined;
    requestId: string;
    requestTime: Date;
  },
): Promise<IdentityContext> {
  const { session } = input;
  const principal: IdentityPrincipal = {
    kind: 'user',
    id: input.user.id,
    assurance: session.assurance,
    authenticationMethod: session.authenticationMethod,
    directCapabilities: [],
    roles: [],
  };
  const base = { principal, session, requestId: input.requestId, requestTime: input.requestTime };
  const restricted = session.assurance === 'recovery';
  if (restricted || input.organizationId === undefined) return { ...base, effectiveCapabilities: new Set() };
  // A federated session can only select its own tenant.
  if (session.federation !== null && session.federation.organizationId !== input.organizationId) {
    return { ...base, effectiveCapabilities: new Set() };
  }
  const organization = await store.findOrganization(input.organizationId);
  if (organization === null || organization.state !== 'active') return { ...base, effectiveCapabilities: new Set() };
  const membership = await store.findMembershipForUser(organization.id, input.user.id);
  if (membership === null || membership.state !== 'active')
    return { ...base, organization, effectiveCapabilities: new Set() };
  const effective = new Set(roleCapabilities(membership.role));
  const grantInput = resolverInput(principal, organization, membership);
  if (grantInput !== undefined)
    for (const granted of await resolverGrants(resolvers, grantInput)) effective.add(granted);
  return { ...base, organization, membership, role: membership.role, effectiveCapabilities: effective };
}
