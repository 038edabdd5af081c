/** Row and statement types, the identity table list, and the random values the row builders fill in. */
import { randomBytes } from 'node:crypto';

/** A row as raw SQL sees it: snake_case column → value. */
export type Row = Record<string, unknown>;

/** Runs one statement (knex `?` placeholders) and returns its rows. */
export type Sql = (query: string, params?: unknown[]) => Promise<Row[]>;

/** Every table of `identity-model.md` §9.5 (plus `schema_migrations`), in dependency order. */
export const IDENTITY_TABLES = [
  'environment',
  'users',
  'organizations',
  'bootstrap_receipts',
  'schema_migrations',
  'memberships',
  'external_identities',
  'sessions',
  'credentials',
  'invitations',
  'service_identities',
  'service_credentials',
  'challenges',
  'recovery_codes',
  'device_grants',
  'device_grant_digest_reservations',
  'device_token_families',
  'device_access_tokens',
  'device_refresh_tokens',
  'device_token_credential_reservations',
  'external_replay_receipts',
  'federation_provider_controls',
  'federation_transactions',
  'federation_provider_registrations',
  'audit_events',
  'scim_operations',
  'scim_batch_operations',
  'scim_groups',
  'scim_connections',
  'scim_connection_group_roles',
  'scim_connection_tokens',
  'scim_users',
  'scim_user_emails',
  'scim_group_members',
  'rate_limit_buckets',
] as const;

/** One identity table name. */
export type IdentityTable = (typeof IDENTITY_TABLES)[number];

/** A canonical lower-case UUIDv7 (48-bit millisecond time + random bits). */
export function uuidV7(at = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Unpadded base64url of `size` random bytes (32 bytes → 43 chars, the stored digest shape). */
export function b64(size = 32): string {
  return randomBytes(size).toString('base64url');
}

/** A federation storage key of `kind`. */
export function storageKey(kind: 'oidc' | 'saml' = 'oidc'): string {
  return `${kind}.${b64()}`;
}

/** PostgreSQL array literal of `values` (elements quoted, `null` as NULL). */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  const element = (value: string | null) =>
    value === null ? 'NULL' : `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `{${values.map(element).join(',')}}`;
}

/** A short random hex token that keeps names, slugs and versions apart. */
export function token(): string {
  return randomBytes(4).toString('hex');
}

/** One minute in milliseconds. */
export const MINUTE = 60_000;
/** One day in milliseconds. */
export const DAY = 24 * 60 * MINUTE;
