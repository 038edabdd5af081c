import { Migration } from '@tessera/database';
import { forgetIdentityMigration, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_SCIM_MIGRATION_NAME = 'tessera_identity_20261127000000_scim';

/** The optional 1..1024-char text attributes of `scim_users` (frozen with this migration). */
const USER_TEXT_COLUMNS = [
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

const AUDIT_TARGETS_BEFORE =
  "'user', 'challenge', 'credential', 'session', 'organization', 'membership', 'invitation', 'service_identity', 'service_credential', 'device_grant', 'external_identity', 'federation_provider', 'scim_group'";

/*
 * Issue 15 on top of the initial SCIM receipts and groups (identity-model §5.10, §9.5):
 * - `scim_connections` (+ its ordered group-to-role rules and keyed-digest bearer tokens): the
 *   SCIM connections an organization manages itself, one active per (organization, providerName);
 * - `scim_users` (+ `scim_user_emails`): the provisioned users of a tenant, relational columns only;
 * - `scim_group_members`: group membership of SCIM users;
 * - audit target types `scim_connection` and `scim_user`.
 * Same conventions as the initial migration (literal SQL, CHECKs in PostgreSQL's printed shape).
 */
const UP: readonly string[] = [
  `create table "tessera_identity"."scim_connections" (
    "id" uuid not null,
    "organization_id" uuid not null,
    "provider_name" text not null,
    "state" text not null,
    "created_at" timestamptz not null,
    "updated_at" timestamptz not null,
    "revoked_at" timestamptz null,
    "token_issued_at" timestamptz not null,
    "version" integer not null default 0,
    constraint "scim_connections_pkey" primary key ("id"),
    constraint "scim_connections_organization_id_foreign" foreign key ("organization_id") references "tessera_identity"."organizations" ("id"),
    constraint "scim_connections_provider_name_check" check (provider_name ~ '^[a-z0-9_-]{1,64}$'),
    constraint "scim_connections_state_check" check (state = any (array['active', 'revoked'])),
    constraint "scim_connections_revoked_check" check ((state = 'revoked') = (revoked_at is not null)),
    constraint "scim_connections_version_check" check (version >= 0)
  )`,
  `create unique index "scim_connections_active_provider_name_unique" on "tessera_identity"."scim_connections" (organization_id, provider_name) where state = 'active'`,
  `create table "tessera_identity"."scim_connection_group_roles" (
    "connection_id" uuid not null,
    "position" integer not null,
    "match_kind" text not null,
    "match_value" text not null,
    "role" text not null,
    constraint "scim_connection_group_roles_pkey" primary key ("connection_id", "position"),
    constraint "scim_connection_group_roles_connection_id_foreign" foreign key ("connection_id") references "tessera_identity"."scim_connections" ("id"),
    constraint "scim_connection_group_roles_position_check" check (position >= 0 and position <= 99),
    constraint "scim_connection_group_roles_match_kind_check" check (match_kind = any (array['display_name', 'external_id'])),
    constraint "scim_connection_group_roles_match_value_check" check (char_length(match_value) >= 1 and char_length(match_value) <= 1024),
    constraint "scim_connection_group_roles_role_check" check (role = any (array['admin', 'publisher', 'viewer']))
  )`,
  `create table "tessera_identity"."scim_connection_tokens" (
    "id" uuid not null,
    "connection_id" uuid not null,
    "digest_algorithm" text not null,
    "digest_encoded" text not null,
    "digest_key_version" text not null,
    "state" text not null,
    "created_at" timestamptz not null,
    "rotated_at" timestamptz null,
    "revoked_at" timestamptz null,
    "version" integer not null default 0,
    constraint "scim_connection_tokens_pkey" primary key ("id"),
    constraint "scim_connection_tokens_digest_encoded_unique" unique ("digest_encoded"),
    constraint "scim_connection_tokens_connection_id_foreign" foreign key ("connection_id") references "tessera_identity"."scim_connections" ("id"),
    constraint "scim_connection_tokens_digest_algorithm_check" check (digest_algorithm = any (array['hmac-sha256'])),
    constraint "scim_connection_tokens_digest_encoded_check" check (digest_encoded ~ '^[A-Za-z0-9_-]{43}$'),
    constraint "scim_connection_tokens_digest_key_version_check" check (digest_key_version ~ '^[A-Za-z0-9._:-]{1,64}$'),
    constraint "scim_connection_tokens_state_check" check (state = any (array['active', 'rotated', 'revoked'])),
    constraint "scim_connection_tokens_rotated_check" check (state = 'active' or rotated_at is not null or revoked_at is not null),
    constraint "scim_connection_tokens_revoked_check" check ((state = 'revoked') = (revoked_at is not null)),
    constraint "scim_connection_tokens_version_check" check (version >= 0)
  )`,
  `create unique index "scim_connection_tokens_active_unique" on "tessera_identity"."scim_connection_tokens" (connection_id) where state = 'active'`,
  `create table "tessera_identity"."scim_users" (
    "id" uuid not null,
    "organization_id" uuid not null,
    "provider" text not null,
    "user_id" uuid not null,
    "user_name" text not null,
    "external_id" text null,
${USER_TEXT_COLUMNS.map((column) => `    "${column}" text null,`).join('\n')}
    "active" boolean not null,
    "state" text not null,
    "created_at" timestamptz not null,
    "updated_at" timestamptz not null,
    "version" integer not null default 1,
    constraint "scim_users_pkey" primary key ("id"),
    constraint "scim_users_organization_id_foreign" foreign key ("organization_id") references "tessera_identity"."organizations" ("id"),
    constraint "scim_users_user_id_foreign" foreign key ("user_id") references "tessera_identity"."users" ("id"),
    constraint "scim_users_provider_check" check (char_length(provider) >= 1 and char_length(provider) <= 300),
    constraint "scim_users_user_name_check" check (char_length(user_name) >= 1 and char_length(user_name) <= 1024),
    constraint "scim_users_external_id_check" check (char_length(external_id) >= 1 and char_length(external_id) <= 1024),
${USER_TEXT_COLUMNS.map((column) => `    constraint "scim_users_${column}_check" check (char_length(${column}) >= 1 and char_length(${column}) <= 1024),`).join('\n')}
    constraint "scim_users_state_check" check (state = any (array['active', 'deleted'])),
    constraint "scim_users_version_check" check (version >= 1)
  )`,
  `create unique index "scim_users_active_user_name_unique" on "tessera_identity"."scim_users" (organization_id, provider, lower(user_name)) where state = 'active'`,
  `create unique index "scim_users_active_external_id_unique" on "tessera_identity"."scim_users" (organization_id, provider, external_id) where state = 'active' and external_id is not null`,
  `create unique index "scim_users_active_user_id_unique" on "tessera_identity"."scim_users" (organization_id, user_id) where state = 'active'`,
  `create index "scim_users_active_user_name_pattern_index" on "tessera_identity"."scim_users" (organization_id, provider, lower(user_name) text_pattern_ops) where state = 'active'`,
  `create index "scim_users_active_created_index" on "tessera_identity"."scim_users" (organization_id, provider, created_at, id) where state = 'active'`,
  `create index "scim_users_active_display_name_index" on "tessera_identity"."scim_users" (organization_id, provider, lower(display_name)) where state = 'active'`,
  `create table "tessera_identity"."scim_user_emails" (
    "scim_user_id" uuid not null,
    "position" integer not null,
    "organization_id" uuid not null,
    "provider" text not null,
    "value" text not null,
    "type" text null,
    "is_primary" boolean not null,
    constraint "scim_user_emails_pkey" primary key ("scim_user_id", "position"),
    constraint "scim_user_emails_scim_user_id_foreign" foreign key ("scim_user_id") references "tessera_identity"."scim_users" ("id") on delete cascade,
    constraint "scim_user_emails_organization_id_foreign" foreign key ("organization_id") references "tessera_identity"."organizations" ("id"),
    constraint "scim_user_emails_position_check" check (position >= 0 and position <= 19),
    constraint "scim_user_emails_provider_check" check (char_length(provider) >= 1 and char_length(provider) <= 300),
    constraint "scim_user_emails_value_check" check (char_length(value) >= 3 and char_length(value) <= 320),
    constraint "scim_user_emails_type_check" check (char_length(type) >= 1 and char_length(type) <= 64)
  )`,
  `create index "scim_user_emails_value_index" on "tessera_identity"."scim_user_emails" (organization_id, provider, lower(value))`,
  `create table "tessera_identity"."scim_group_members" (
    "group_id" uuid not null,
    "scim_user_id" uuid not null,
    "organization_id" uuid not null,
    "provider" text not null,
    "added_at" timestamptz not null,
    constraint "scim_group_members_pkey" primary key ("group_id", "scim_user_id"),
    constraint "scim_group_members_group_id_foreign" foreign key ("group_id") references "tessera_identity"."scim_groups" ("id"),
    constraint "scim_group_members_scim_user_id_foreign" foreign key ("scim_user_id") references "tessera_identity"."scim_users" ("id"),
    constraint "scim_group_members_organization_id_foreign" foreign key ("organization_id") references "tessera_identity"."organizations" ("id"),
    constraint "scim_group_members_provider_check" check (char_length(provider) >= 1 and char_length(provider) <= 300)
  )`,
  `create index "scim_group_members_scim_user_id_index" on "tessera_identity"."scim_group_members" ("scim_user_id")`,
  `alter table "tessera_identity"."audit_events"
    drop constraint "audit_events_target_type_check",
    add constraint "audit_events_target_type_check" check (target_type = any (array[${AUDIT_TARGETS_BEFORE}, 'scim_connection', 'scim_user']))`,
];

const DOWN: readonly string[] = [
  `alter table "tessera_identity"."audit_events"
    drop constraint "audit_events_target_type_check",
    add constraint "audit_events_target_type_check" check (target_type = any (array[${AUDIT_TARGETS_BEFORE}]))`,
  `drop table if exists "tessera_identity"."scim_group_members"`,
  `drop table if exists "tessera_identity"."scim_user_emails"`,
  `drop table if exists "tessera_identity"."scim_users"`,
  `drop table if exists "tessera_identity"."scim_connection_tokens"`,
  `drop table if exists "tessera_identity"."scim_connection_group_roles"`,
  `drop table if exists "tessera_identity"."scim_connections"`,
];

/**
 * Organization-managed SCIM connections, provisioned SCIM users with their emails, SCIM group
 * members, and the SCIM audit target types (issue 15).
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_SCIM_MIGRATION_NAME, class: Migration20261127000000IdentityScim }] }
 */
export class Migration20261127000000IdentityScim extends Migration {
  override async up(): Promise<void> {
    for (const statement of UP) this.addSql(statement);
    recordIdentityMigration(this, IDENTITY_SCIM_MIGRATION_NAME);
  }

  override async down(): Promise<void> {
    for (const statement of DOWN) this.addSql(statement);
    forgetIdentityMigration(this, IDENTITY_SCIM_MIGRATION_NAME);
  }
}
