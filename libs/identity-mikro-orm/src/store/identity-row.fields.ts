import {
  EXTERNAL_IDENTITY_FIELDS,
  FEDERATION_PROVIDER_CONTROL_FIELDS,
  FEDERATION_PROVIDER_REGISTRATION_FIELDS,
  FEDERATION_TRANSACTION_FIELDS,
} from './identity-federation.fields.js';
import {
  SCIM_BATCH_OPERATION_FIELDS,
  SCIM_CONNECTION_FIELDS,
  SCIM_CONNECTION_TOKEN_FIELDS,
  SCIM_GROUP_FIELDS,
  SCIM_USER_FIELDS,
} from './identity-scim.fields.js';

/*
 * Every column of the rows a joined statement hands back under a prefix (`<prefix><column>`), so
 * the row mappers read them with `unprefix`. Kept in the schema's column order.
 */

export const USER_FIELDS = [
  'id',
  'primary_email',
  'display_name',
  'state',
  'session_epoch',
  'created_at',
  'updated_at',
  'version',
] as const;

export const ORGANIZATION_FIELDS = [
  'id',
  'name',
  'slug',
  'state',
  'created_at',
  'updated_at',
  'deleted_at',
  'version',
] as const;

export const MEMBERSHIP_FIELDS = [
  'id',
  'organization_id',
  'user_id',
  'role',
  'state',
  'created_at',
  'updated_at',
  'removed_at',
  'version',
] as const;

export const CREDENTIAL_FIELDS = [
  'id',
  'user_id',
  'web_authn_id',
  'name',
  'public_key',
  'sign_count',
  'backup_eligible',
  'backed_up',
  'transports',
  'state',
  'created_at',
  'updated_at',
  'last_used_at',
  'revoked_at',
  'version',
] as const;

export const CHALLENGE_FIELDS = [
  'id',
  'purpose',
  'state',
  'challenge_digest_algorithm',
  'challenge_digest_encoded',
  'challenge_digest_key_version',
  'binding_digest',
  'payload_digest',
  'user_binding_digest',
  'user_id',
  'organization_id',
  'expires_at',
  'activated_at',
  'failure_reason',
  'created_at',
  'updated_at',
  'version',
] as const;

export const SESSION_FIELDS = [
  'id',
  'family_id',
  'user_id',
  'token_digest_algorithm',
  'token_digest_encoded',
  'token_digest_key_version',
  'csrf_digest_algorithm',
  'csrf_digest_encoded',
  'csrf_digest_key_version',
  'state',
  'assurance',
  'authentication_method',
  'federation_organization_id',
  'federation_provider_key',
  'federation_provider_session_epoch',
  'external_identity_id',
  'user_session_epoch',
  'rotation_counter',
  'rotated_to_id',
  'label',
  'platform',
  'authenticated_at',
  'last_used_at',
  'idle_expires_at',
  'absolute_expires_at',
  'revoked_at',
  'revoked_reason',
  'created_at',
  'updated_at',
  'version',
] as const;

export const INVITATION_FIELDS = [
  'id',
  'organization_id',
  'email',
  'role',
  'state',
  'token_digest_algorithm',
  'token_digest_encoded',
  'token_digest_key_version',
  'invited_by_user_id',
  'accepted_by_user_id',
  'accepted_at',
  'revoked_at',
  'expires_at',
  'created_at',
  'updated_at',
  'version',
] as const;

export const RECOVERY_CODE_FIELDS = [
  'id',
  'user_id',
  'generation',
  'public_selector',
  'secret_digest_algorithm',
  'secret_digest_encoded',
  'secret_digest_key_version',
  'state',
  'created_at',
  'updated_at',
  'consumed_at',
  'version',
] as const;

export const SERVICE_IDENTITY_FIELDS = [
  'id',
  'organization_id',
  'name',
  'description',
  'capabilities',
  'state',
  'created_at',
  'updated_at',
  'revoked_at',
  'version',
] as const;

export const SERVICE_CREDENTIAL_FIELDS = [
  'id',
  'service_identity_id',
  'public_prefix',
  'secret_digest_algorithm',
  'secret_digest_encoded',
  'secret_digest_key_version',
  'capabilities',
  'state',
  'expires_at',
  'created_at',
  'updated_at',
  'last_used_at',
  'rotated_at',
  'rotated_to_id',
  'revoked_at',
  'version',
] as const;

export const AUDIT_EVENT_FIELDS = [
  'id',
  'actor_type',
  'actor_user_id',
  'actor_service_identity_id',
  'organization_id',
  'action',
  'target_type',
  'target_id',
  'outcome',
  'reason_code',
  'request_id',
  'request_method',
  'request_path',
  'request_user_agent',
  'request_client_ip_digest',
  'request_trusted_proxy',
  'occurred_at',
] as const;

export const BOOTSTRAP_RECEIPT_FIELDS = [
  'id',
  'digest_algorithm',
  'digest_encoded',
  'user_id',
  'organization_id',
  'consumed_at',
] as const;

export const DEVICE_GRANT_FIELDS = [
  'id',
  'device_code_digest_algorithm',
  'device_code_digest_encoded',
  'device_code_digest_key_version',
  'user_code_digest_algorithm',
  'user_code_digest_encoded',
  'user_code_digest_key_version',
  'client_id',
  'client_name',
  'requested_capabilities',
  'state',
  'interval_seconds',
  'poll_count',
  'last_polled_at',
  'expires_at',
  'user_id',
  'organization_id',
  'membership_id',
  'membership_version',
  'authorized_by_user_id',
  'authorized_at',
  'approved_capabilities',
  'created_at',
  'updated_at',
  'version',
  'inspected_by_session_id',
  'inspected_at',
] as const;

export const DEVICE_TOKEN_FAMILY_FIELDS = [
  'id',
  'device_grant_id',
  'user_id',
  'organization_id',
  'membership_id',
  'membership_version',
  'client_id',
  'capabilities',
  'state',
  'expires_at',
  'created_at',
  'updated_at',
  'revoked_at',
  'revoked_reason',
  'version',
] as const;

export const DEVICE_ACCESS_TOKEN_FIELDS = [
  'id',
  'family_id',
  'public_selector',
  'token_digest_algorithm',
  'token_digest_encoded',
  'token_digest_key_version',
  'state',
  'expires_at',
  'created_at',
  'updated_at',
  'revoked_at',
  'version',
] as const;

/**
 * A refresh token row without `retry_sealed_successor`: the sealed blob leaves the database only
 * where a retry returns it (the rotation command selects it by name).
 */
export const DEVICE_REFRESH_TOKEN_FIELDS = [
  'id',
  'family_id',
  'public_selector',
  'token_digest_algorithm',
  'token_digest_encoded',
  'token_digest_key_version',
  'state',
  'rotation_counter',
  'rotated_to_id',
  'consumed_at',
  'expires_at',
  'created_at',
  'updated_at',
  'revoked_at',
  'version',
  'retry_until',
] as const;

export const DEVICE_GRANT_DIGEST_RESERVATION_FIELDS = [
  'digest_algorithm',
  'digest_encoded',
  'digest_key_version',
  'grant_id',
  'kind',
  'created_at',
] as const;

export const DEVICE_TOKEN_CREDENTIAL_RESERVATION_FIELDS = [
  'kind',
  'token_id',
  'public_selector',
  'digest_algorithm',
  'digest_encoded',
  'digest_key_version',
  'created_at',
] as const;

/**
 * The explicit column list of every table a statement reads whole rows of. Statements name their
 * columns instead of `*`: a prepared statement's result type then stays the same when a migration
 * adds a column, where `select *` fails with `0A000 cached plan must not change result type`.
 */
const TABLE_FIELDS: Record<string, readonly string[]> = {
  users: USER_FIELDS,
  organizations: ORGANIZATION_FIELDS,
  memberships: MEMBERSHIP_FIELDS,
  credentials: CREDENTIAL_FIELDS,
  challenges: CHALLENGE_FIELDS,
  sessions: SESSION_FIELDS,
  invitations: INVITATION_FIELDS,
  recovery_codes: RECOVERY_CODE_FIELDS,
  service_identities: SERVICE_IDENTITY_FIELDS,
  service_credentials: SERVICE_CREDENTIAL_FIELDS,
  audit_events: AUDIT_EVENT_FIELDS,
  bootstrap_receipts: BOOTSTRAP_RECEIPT_FIELDS,
  device_grants: DEVICE_GRANT_FIELDS,
  device_token_families: DEVICE_TOKEN_FAMILY_FIELDS,
  device_access_tokens: DEVICE_ACCESS_TOKEN_FIELDS,
  device_refresh_tokens: DEVICE_REFRESH_TOKEN_FIELDS,
  device_grant_digest_reservations: DEVICE_GRANT_DIGEST_RESERVATION_FIELDS,
  device_token_credential_reservations: DEVICE_TOKEN_CREDENTIAL_RESERVATION_FIELDS,
  external_identities: EXTERNAL_IDENTITY_FIELDS,
  federation_provider_controls: FEDERATION_PROVIDER_CONTROL_FIELDS,
  federation_transactions: FEDERATION_TRANSACTION_FIELDS,
  federation_provider_registrations: FEDERATION_PROVIDER_REGISTRATION_FIELDS,
  scim_users: SCIM_USER_FIELDS,
  scim_groups: SCIM_GROUP_FIELDS,
  scim_connections: SCIM_CONNECTION_FIELDS,
  scim_connection_tokens: SCIM_CONNECTION_TOKEN_FIELDS,
  scim_batch_operations: SCIM_BATCH_OPERATION_FIELDS,
};

/**
 * `"id", "user_id", …` (or `alias."id", …`): the select or `returning` list of a whole row of
 * `tableName`, in the schema's order.
 *
 * @example
 * sql(`select ${allColumns('sessions')} from ${table('sessions')} where id = ?`, [id]);
 */
export function allColumns(tableName: string, alias?: string): string {
  const fields = TABLE_FIELDS[tableName];
  if (fields === undefined) throw new Error(`no column list for table ${tableName}`);
  const prefix = alias === undefined ? '' : `${alias}.`;
  return fields.map((field) => `${prefix}"${field}"`).join(', ');
}

/** `alias."column" as "<prefix>column"` for each field: a select list `unprefix(row, prefix)` reads back. */
export function prefixedFields(alias: string, fields: readonly string[], prefix: string): string {
  return fields.map((field) => `${alias}."${field}" as "${prefix}${field}"`).join(', ');
}
