import { CoreConfigError } from './core.errors.js';
import { isCoreAccessName, type CorePrincipal } from './principal.js';

/**
 * What a route requires of a principal. `permissions`: **every** one listed; `roles`: **at least
 * one** of those listed; both when both are given. Names match exactly (no wildcards). An absent
 * or empty list adds no condition: `{}` requires authentication only.
 *
 * @example
 * const requirement: CoreAccessRequirement = { permissions: ['metrics.read'], roles: ['operator', 'admin'] };
 */
export interface CoreAccessRequirement {
  readonly permissions?: readonly string[];
  readonly roles?: readonly string[];
}

/**
 * Outcome of {@link decideAccess}: `unauthenticated` answers 401, `forbidden` answers 403.
 *
 * @example
 * if (decideAccess(principal, requirement) === 'forbidden') throw new ForbiddenException();
 */
export type CoreAccessDecision = 'allow' | 'unauthenticated' | 'forbidden';

/**
 * The one access decision behind core's radix middleware and `CoreAuthGuard`: no principal →
 * `unauthenticated`; a missing permission or no listed role → `forbidden`; else `allow`.
 *
 * @example
 * decideAccess(null, { permissions: ['metrics.read'] }); // 'unauthenticated'
 * decideAccess({ kind: 'api_key', id: 'k', roles: [], permissions: [] }, { permissions: ['metrics.read'] }); // 'forbidden'
 */
export function decideAccess(
  principal: CorePrincipal | null | undefined,
  requirement: CoreAccessRequirement = {},
): CoreAccessDecision {
  if (principal === null || principal === undefined) return 'unauthenticated';
  const { permissions = [], roles = [] } = requirement;
  for (const permission of permissions) {
    if (!principal.permissions.includes(permission)) return 'forbidden';
  }
  if (roles.length > 0 && !roles.some((role) => principal.roles.includes(role))) return 'forbidden';
  return 'allow';
}

/**
 * Validates the names given to a decorator or route wrapper when it is applied: at least one,
 * each a valid role/permission name; returns a frozen, de-duplicated copy.
 *
 * @example
 * const permissions = coreAccessNames('permission', ['metrics.read']);
 */
export function coreAccessNames(what: 'permission' | 'role', names: readonly unknown[]): readonly string[] {
  if (!Array.isArray(names) || names.length === 0) {
    throw new CoreConfigError(
      'invalid_requirement',
      `At least one ${what} is required (an empty list would require nothing)`,
    );
  }
  for (const name of names) {
    if (!isCoreAccessName(name)) {
      throw new CoreConfigError(
        'invalid_requirement',
        `Invalid ${what} ${JSON.stringify(name)}: names are 1-128 characters of A-Z a-z 0-9 _ . : / - and start with a letter or digit`,
      );
    }
  }
  return Object.freeze([...new Set(names as string[])]);
}

/**
 * Validates a whole requirement (see {@link coreAccessNames}); `{}` is valid and means "authenticated".
 *
 * @example
 * const requirement = coreAccessRequirement({ permissions: ['metrics.read'] });
 */
export function coreAccessRequirement(requirement: CoreAccessRequirement): CoreAccessRequirement {
  if (requirement === null || typeof requirement !== 'object') {
    throw new CoreConfigError('invalid_requirement', 'An access requirement must be an object');
  }
  const out: { permissions?: readonly string[]; roles?: readonly string[] } = {};
  if (requirement.permissions !== undefined) out.permissions = coreAccessNames('permission', requirement.permissions);
  if (requirement.roles !== undefined) out.roles = coreAccessNames('role', requirement.roles);
  return Object.freeze(out);
}
