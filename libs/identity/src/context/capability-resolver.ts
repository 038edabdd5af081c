import { IDENTITY_OWNED_CAPABILITIES } from '../organizations/capabilities.js';
import type { MembershipRecord, OrganizationRecord, OrganizationRole } from '../store/identity-records.js';
import type { IdentityContext, IdentityPrincipal } from './identity-context.js';

/** What an application grant is decided from. */
export interface CapabilityResolverInput {
  readonly principal: IdentityPrincipal;
  readonly organization: OrganizationRecord;
  readonly membership?: MembershipRecord;
  readonly role?: OrganizationRole;
}

/**
 * Application grants (e.g. `package.publish` for publishers). Its output never grants an
 * identity-owned capability: those are removed before use (identity-model §6.2). Resolvers run
 * only for user principals with an active membership in an active organization.
 *
 * @example
 * const publishers: CapabilityResolver = { resolve: ({ role }) => (role === 'publisher' ? ['package.publish'] : []) };
 */
export interface CapabilityResolver {
  resolve(input: CapabilityResolverInput): readonly string[] | Promise<readonly string[]>;
}

/** Picks the organization a host route is scoped to (identity routes use their path). */
export type OrganizationSelector = (path: string) => string | undefined;

/**
 * The input a {@link CapabilityResolver} may see for this principal, or `undefined` when resolvers
 * do not apply (identity-model §6.2): only a non-restricted user principal with an active
 * membership in the active organization of the request gets resolver grants. Service and device
 * principals keep their direct scopes; a user without such a membership gets nothing.
 *
 * @example
 * const input = resolverInput(context.principal, context.organization, context.membership);
 */
export function resolverInput(
  principal: IdentityPrincipal,
  organization: OrganizationRecord | undefined,
  membership: MembershipRecord | undefined,
): CapabilityResolverInput | undefined {
  if (principal.kind !== 'user' || principal.assurance === 'recovery') return undefined;
  if (organization === undefined || organization.state !== 'active') return undefined;
  if (membership === undefined || membership.state !== 'active' || membership.organizationId !== organization.id)
    return undefined;
  return { principal, organization, membership, role: membership.role };
}

/**
 * The grants of `resolvers` for `input`, identity-owned capabilities removed.
 *
 * @example
 * for (const name of await resolverGrants(resolvers, input)) effective.add(name);
 */
export async function resolverGrants(
  resolvers: readonly CapabilityResolver[],
  input: CapabilityResolverInput,
): Promise<string[]> {
  const granted: string[] = [];
  for (const resolver of resolvers) {
    for (const capability of await resolver.resolve(input)) {
      if (!IDENTITY_OWNED_CAPABILITIES.has(capability)) granted.push(capability);
    }
  }
  return granted;
}

/**
 * `context` with the grants of an extra resolver added, when resolvers apply to it
 * ({@link resolverInput}); otherwise `context` unchanged.
 *
 * @example
 * const widened = await withResolverGrants(context, resolver);
 */
export async function withResolverGrants(
  context: IdentityContext | undefined,
  resolver: CapabilityResolver,
): Promise<IdentityContext | undefined> {
  if (context === undefined) return undefined;
  const input = resolverInput(context.principal, context.organization, context.membership);
  if (input === undefined) return context;
  const effective = new Set(context.effectiveCapabilities);
  for (const name of await resolverGrants([resolver], input)) effective.add(name);
  return { ...context, effectiveCapabilities: effective };
}
