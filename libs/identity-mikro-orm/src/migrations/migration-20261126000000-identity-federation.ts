import { Migration } from '@tessera/database';
import { forgetIdentityMigration, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_FEDERATION_MIGRATION_NAME = 'tessera_identity_20261126000000_federation';

/*
 * Issue 14 on top of the initial federation tables (identity-http §6, identity-model §5.9):
 * - `federation_provider_registrations`: the providers an organization registers itself, one row
 *   per (organization, providerId), relational columns only. The storage key is immutable and
 *   unique; the protocol decides which columns are set (OIDC: issuer and client id, an optional
 *   sealed client secret; SAML: IdP entity id, SSO URL, 1..8 certificates and a signature policy);
 * - `federation_transactions.initiator_session_id`: the signed-in session that started federation
 *   to link its user (the callback rotates it); the transaction goes with the session.
 * Same conventions as the initial migration (literal SQL, CHECKs in PostgreSQL's printed shape).
 */
const UP: readonly string[] = [
  `create table "tessera_identity"."federation_provider_registrations" (
    "organization_id" uuid not null,
    "provider_id" text not null,
    "protocol" text not null,
    "display_name" text not null,
    "jit" boolean not null,
    "storage_key" text not null,
    "issuer" text null,
    "client_id" text null,
    "client_secret_ciphertext" bytea null,
    "idp_entity_id" text null,
    "sso_url" text null,
    "idp_certificates_pem" text[] not null,
    "signature_policy" text null,
    "created_at" timestamptz not null,
    "updated_at" timestamptz not null,
    "version" integer not null default 0,
    constraint "federation_provider_registrations_pkey" primary key ("organization_id", "provider_id"),
    constraint "federation_provider_registrations_storage_key_unique" unique ("storage_key"),
    constraint "federation_provider_registrations_organization_id_foreign" foreign key ("organization_id") references "tessera_identity"."organizations" ("id"),
    constraint "federation_provider_registrations_provider_id_check" check (provider_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    constraint "federation_provider_registrations_protocol_check" check (protocol = any (array['oidc', 'saml'])),
    constraint "federation_provider_registrations_display_name_check" check (char_length(display_name) >= 1 and char_length(display_name) <= 200),
    constraint "federation_provider_registrations_storage_key_check" check (storage_key ~ '^(oidc|saml)[.][A-Za-z0-9_-]{43}$' and strpos(storage_key, protocol || '.') = 1),
    constraint "federation_provider_registrations_issuer_check" check (char_length(issuer) >= 1 and char_length(issuer) <= 2048),
    constraint "federation_provider_registrations_client_id_check" check (char_length(client_id) >= 1 and char_length(client_id) <= 512),
    constraint "federation_provider_registrations_client_secret_check" check (octet_length(client_secret_ciphertext) >= 1 and octet_length(client_secret_ciphertext) <= 4096),
    constraint "federation_provider_registrations_idp_entity_id_check" check (char_length(idp_entity_id) >= 1 and char_length(idp_entity_id) <= 1024),
    constraint "federation_provider_registrations_sso_url_check" check (char_length(sso_url) >= 1 and char_length(sso_url) <= 2048),
    constraint "federation_provider_registrations_idp_certificates_pem_check" check (cardinality(idp_certificates_pem) <= 8 and array_position(idp_certificates_pem, null) is null),
    constraint "federation_provider_registrations_signature_policy_check" check (signature_policy = any (array['assertion', 'response', 'both', 'assertion_or_response'])),
    constraint "federation_provider_registrations_protocol_columns_check" check ((protocol = 'oidc' and issuer is not null and client_id is not null and idp_entity_id is null and sso_url is null and signature_policy is null and cardinality(idp_certificates_pem) = 0) or (protocol = 'saml' and idp_entity_id is not null and sso_url is not null and signature_policy is not null and cardinality(idp_certificates_pem) >= 1 and issuer is null and client_id is null and client_secret_ciphertext is null)),
    constraint "federation_provider_registrations_version_check" check (version >= 0)
  )`,
  `alter table "tessera_identity"."federation_transactions"
    add column "initiator_session_id" uuid null,
    add constraint "federation_transactions_initiator_session_id_foreign" foreign key ("initiator_session_id") references "tessera_identity"."sessions" ("id") on delete cascade`,
];

const DOWN: readonly string[] = [
  `alter table "tessera_identity"."federation_transactions"
    drop constraint "federation_transactions_initiator_session_id_foreign",
    drop column "initiator_session_id"`,
  `drop table if exists "tessera_identity"."federation_provider_registrations"`,
];

/**
 * Organization-managed federation provider registrations and the link-initiating session of a
 * federation transaction (issue 14).
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_FEDERATION_MIGRATION_NAME, class: Migration20261126000000IdentityFederation }] }
 */
export class Migration20261126000000IdentityFederation extends Migration {
  override async up(): Promise<void> {
    for (const statement of UP) this.addSql(statement);
    recordIdentityMigration(this, IDENTITY_FEDERATION_MIGRATION_NAME);
  }

  override async down(): Promise<void> {
    for (const statement of DOWN) this.addSql(statement);
    forgetIdentityMigration(this, IDENTITY_FEDERATION_MIGRATION_NAME);
  }
}
