import type { MembershipRecord, OrganizationRecord, OrganizationRole } from '../store/identity-records.js';
import type { IdentityPrincipal } from './identity-context.js';

/** What an application grant is decided from. */
export interface CapabilityResolverInput {
  readonly principal: IdentityPrincipal;
  readonly organization: OrganizationRecord;
  readonly membership?: MembershipRecord;
  readonly role?: OrganizationRole;
}

/**
 * Application grants (e.g. `package.publish` for publishers). Its output never grants an
 * identity-owned capability: those are removed before use (identity-model §6.2).
 *
 * @example
 * const publishers: CapabilityResolver = { resolve: ({ role }) => (role === 'publisher' ? ['package.publish'] : []) };
 */
export interface CapabilityResolver {
  resolve(input: CapabilityResolverInput): readonly string[] | Promise<readonly string[]>;
}

/** Picks the organization a host route is scoped to (identity routes use their path). */
export type OrganizationSelector = (path: string) => string | undefined;
