/* The closed value sets of the SCIM provisioning columns (issue 15), in the order of the migration's CHECKs. */

/**
 * States of an organization-managed SCIM connection.
 *
 * @example
 * SCIM_CONNECTION_STATES.includes(value as never); // true for a stored value
 */
export const SCIM_CONNECTION_STATES = ['active', 'revoked'] as const;
/** A {@link SCIM_CONNECTION_STATES} value. */
export type ScimConnectionStateValue = (typeof SCIM_CONNECTION_STATES)[number];

/**
 * States of a SCIM connection token (`rotated` tokens authenticate for the rotation overlap).
 *
 * @example
 * SCIM_TOKEN_STATES.includes(value as never); // true for a stored value
 */
export const SCIM_TOKEN_STATES = ['active', 'rotated', 'revoked'] as const;
/** A {@link SCIM_TOKEN_STATES} value. */
export type ScimTokenStateValue = (typeof SCIM_TOKEN_STATES)[number];

/**
 * How a group-to-role rule matches a group: by display name (case-insensitive) or external id (exact).
 *
 * @example
 * SCIM_GROUP_MATCH_KINDS.includes(value as never); // true for a stored value
 */
export const SCIM_GROUP_MATCH_KINDS = ['display_name', 'external_id'] as const;
/** A {@link SCIM_GROUP_MATCH_KINDS} value. */
export type ScimGroupMatchKind = (typeof SCIM_GROUP_MATCH_KINDS)[number];

/**
 * Roles a SCIM group rule may grant (never `owner`, identity-model §5.10).
 *
 * @example
 * SCIM_GRANTED_ROLES.includes(value as never); // true for a stored value
 */
export const SCIM_GRANTED_ROLES = ['admin', 'publisher', 'viewer'] as const;
/** A {@link SCIM_GRANTED_ROLES} value. */
export type ScimGrantedRole = (typeof SCIM_GRANTED_ROLES)[number];

/**
 * States of a provisioned SCIM user (`deleted` rows are never read back).
 *
 * @example
 * SCIM_USER_STATES.includes(value as never); // true for a stored value
 */
export const SCIM_USER_STATES = ['active', 'deleted'] as const;
/** A {@link SCIM_USER_STATES} value. */
export type ScimUserState = (typeof SCIM_USER_STATES)[number];

/**
 * The optional text attributes of a SCIM user, as `scim_users` columns (each 1..1024 chars when set).
 *
 * @example
 * for (const column of SCIM_USER_TEXT_COLUMNS) row[column] = null;
 */
export const SCIM_USER_TEXT_COLUMNS = [
  'display_name',
  'nick_name',
  'title',
  'user_type',
  'preferred_language',
  'locale',
  'timezone',
  'name_formatted',
  'name_family_name',
  'name_given_name',
  'name_middle_name',
  'name_honorific_prefix',
  'name_honorific_suffix',
  'enterprise_employee_number',
  'enterprise_cost_center',
  'enterprise_organization',
  'enterprise_division',
  'enterprise_department',
] as const;
