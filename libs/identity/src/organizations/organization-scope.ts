import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError, type StoreErrorCode } from '../errors/store.errors.js';
import { decideCapability, decideOrganization } from '../guards/identity-decisions.js';
import type { MembershipRecord, OrganizationRecord, OrganizationRole } from '../store/identity-records.js';

/** The caller's standing in the route's organization once stage 10 passed. */
export interface OrganizationScope {
  readonly organization: OrganizationRecord;
  readonly membership: MembershipRecord;
  readonly role: OrganizationRole;
}

/**
 * Stage 10 tenancy (identity-model §6.1): the organization the path names, active, with an active
 * membership of the caller and — when given — `capability` among the effective capabilities.
 * Every failure (unknown, deleted or suspended organization, another tenant, no or inactive
 * membership, missing capability) is the same 404 `not_found`.
 *
 * @example
 * const { organization, role } = requireOrganizationScope(context, organizationId, 'organization.update');
 */
export function requireOrganizationScope(
  context: IdentityContext,
  organizationId: string,
  capability?: string,
): OrganizationScope {
  const scoped = decideOrganization(context, organizationId);
  if (!scoped.allow) throw new IdentityError('not_found');
  if (capability !== undefined && !decideCapability(context, capability).allow) throw new IdentityError('not_found');
  const { organization, membership } = context;
  if (organization === undefined || membership === undefined) throw new IdentityError('not_found');
  return { organization, membership, role: membership.role };
}

/**
 * A failed organization or membership command as an identity error: a target that vanished or
 * left the `active` state is hidden as 404 `not_found`; the rest follows the organization column
 * of identity-model §9.4 (`unique_constraint`, `last_owner`, `version_conflict` → 409 `conflict`).
 *
 * @example
 * if (!result.ok) throw organizationFailure(result.code);
 */
export function organizationFailure(code: StoreErrorCode): IdentityError {
  if (code === 'not_found' || code === 'invalid_transition') return new IdentityError('not_found');
  return new IdentityError(mapStoreError(code, 'organization'));
}
