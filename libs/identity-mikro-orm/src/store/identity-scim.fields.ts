import { SCIM_USER_TEXT_COLUMNS } from '../schema/identity-scim.values.js';

/*
 * Every column of the SCIM tables the store reads whole rows of, in the schema's column order.
 */

/**
 * The columns of `scim_users`.
 *
 * @example
 * sql(`select ${allColumns('scim_users')} from ${table('scim_users')} where id = ?`, [id]);
 */
export const SCIM_USER_FIELDS = [
  'id',
  'organization_id',
  'provider',
  'user_id',
  'user_name',
  'external_id',
  ...SCIM_USER_TEXT_COLUMNS,
  'active',
  'state',
  'created_at',
  'updated_at',
  'version',
] as const;

/**
 * The columns of `scim_groups`.
 *
 * @example
 * sql(`select ${allColumns('scim_groups')} from ${table('scim_groups')} where id = ?`, [id]);
 */
export const SCIM_GROUP_FIELDS = [
  'id',
  'organization_id',
  'provider',
  'external_id',
  'display_name',
  'state',
  'created_at',
  'updated_at',
  'version',
] as const;

/**
 * The columns of `scim_connections`.
 *
 * @example
 * prefixedFields('c', SCIM_CONNECTION_FIELDS, 'c_');
 */
export const SCIM_CONNECTION_FIELDS = [
  'id',
  'organization_id',
  'provider_name',
  'state',
  'created_at',
  'updated_at',
  'revoked_at',
  'token_issued_at',
  'version',
] as const;

/**
 * The columns of `scim_connection_tokens`.
 *
 * @example
 * prefixedFields('t', SCIM_CONNECTION_TOKEN_FIELDS, 't_');
 */
export const SCIM_CONNECTION_TOKEN_FIELDS = [
  'id',
  'connection_id',
  'digest_algorithm',
  'digest_encoded',
  'digest_key_version',
  'state',
  'created_at',
  'rotated_at',
  'revoked_at',
  'version',
] as const;

/**
 * The columns of `scim_batch_operations`.
 *
 * @example
 * sql(`select ${allColumns('scim_batch_operations')} from ${table('scim_batch_operations')} where operation_id = ?`, [id]);
 */
export const SCIM_BATCH_OPERATION_FIELDS = [
  'operation_id',
  'organization_id',
  'provider',
  'request_method',
  'request_path',
  'request_precondition',
  'request_digest',
  'mutation_count',
  'result_status',
  'result_resource_type',
  'result_resource_id',
  'result_version',
  'committed_at',
] as const;
