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

/** `alias."column" as "<prefix>column"` for each field: a select list `unprefix(row, prefix)` reads back. */
export function prefixedFields(alias: string, fields: readonly string[], prefix: string): string {
  return fields.map((field) => `${alias}."${field}" as "${prefix}${field}"`).join(', ');
}
