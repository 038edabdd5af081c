/**
 * Metadata key of `@RequireCorePermission` (a frozen list of permission names).
 *
 * @example
 * const permissions = reflector.getAllAndOverride<string[]>(CORE_PERMISSIONS_METADATA, [handler, controller]);
 */
export const CORE_PERMISSIONS_METADATA: unique symbol = Symbol('tessera.core.permissions');

/**
 * Metadata key of `@RequireCoreRole` (a frozen list of role names).
 *
 * @example
 * const roles = reflector.getAllAndOverride<string[]>(CORE_ROLES_METADATA, [handler, controller]);
 */
export const CORE_ROLES_METADATA: unique symbol = Symbol('tessera.core.roles');
