import { Migration } from '@mikro-orm/migrations';

/**
 * Creates schema `tessera_core` and `core_session`: digest-only tokens (CHECK on the hex shape,
 * UNIQUE), JSON arrays for roles and permissions (CHECKed), expiry after creation, and indexes for
 * per-principal revocation and expiry purging.
 *
 * @example
 * migrations: { migrationsList: [{ name: 'tessera_core_20250601000000_core_session', class: Migration20250601000000CoreSession }] }
 */
export class Migration20250601000000CoreSession extends Migration {
  override async up(): Promise<void> {
    this.addSql('create schema if not exists "tessera_core";');
    this.addSql(`create table "tessera_core"."core_session" (
      "id" uuid not null,
      "token_digest" char(64) not null,
      "principal_kind" varchar(64) not null,
      "principal_id" varchar(255) not null,
      "roles" jsonb not null,
      "permissions" jsonb not null,
      "attributes" jsonb null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "last_seen_at" timestamptz not null,
      "revoked_at" timestamptz null,
      constraint "core_session_pkey" primary key ("id"),
      constraint "core_session_token_digest_unique" unique ("token_digest"),
      constraint "core_session_token_digest_check" check ("token_digest" ~ '^[0-9a-f]{64}$'),
      constraint "core_session_principal_kind_check" check ("principal_kind" ~ '^[a-z][a-z0-9_.-]{0,63}$'),
      constraint "core_session_principal_id_check" check (length("principal_id") between 1 and 255),
      constraint "core_session_roles_check" check (jsonb_typeof("roles") = 'array'),
      constraint "core_session_permissions_check" check (jsonb_typeof("permissions") = 'array'),
      constraint "core_session_attributes_check" check ("attributes" is null or jsonb_typeof("attributes") = 'object'),
      constraint "core_session_expiry_check" check ("expires_at" > "created_at")
    );`);
    this.addSql(
      'create index "core_session_principal_index" on "tessera_core"."core_session" ("principal_kind", "principal_id") where "revoked_at" is null;',
    );
    this.addSql('create index "core_session_expires_at_index" on "tessera_core"."core_session" ("expires_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "tessera_core"."core_session";');
    // Fails (rather than cascading) if the application put its own objects in the schema.
    this.addSql('drop schema if exists "tessera_core";');
  }
}
