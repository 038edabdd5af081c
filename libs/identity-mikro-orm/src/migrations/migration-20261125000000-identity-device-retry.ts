import { Migration } from '@tessera/database';
import { forgetIdentityMigration, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_DEVICE_RETRY_MIGRATION_NAME = 'tessera_identity_20261125000000_device_retry';

/*
 * Issue 13 on top of the initial device tables (identity-model §5.5 as changed by it):
 * - `device_grants` records which session inspected a pending grant and when (approve and deny are
 *   accepted only from that session within 10 minutes);
 * - `device_refresh_tokens` keeps, on a rotated parent, the successor pair sealed by the domain
 *   layer (AES-256-GCM under a key derived from the parent's secret: opaque bytes here) until
 *   `retry_until`, with the id of the successor's access token; all three set together, only on a
 *   rotated token;
 * - expiry indexes for the maintenance purge.
 * Same conventions as the initial migration (literal SQL, CHECKs in PostgreSQL's printed shape).
 */
const UP: readonly string[] = [
  `alter table "tessera_identity"."device_grants"
    add column "inspected_by_session_id" uuid null,
    add column "inspected_at" timestamptz null,
    add constraint "device_grants_inspected_by_session_id_foreign" foreign key ("inspected_by_session_id") references "tessera_identity"."sessions" ("id"),
    add constraint "device_grants_inspection_check" check ((inspected_by_session_id is null) = (inspected_at is null))`,
  `create index "device_grants_expires_at_index" on "tessera_identity"."device_grants" ("expires_at")`,
  `create index "device_token_families_expires_at_index" on "tessera_identity"."device_token_families" ("expires_at")`,
  `alter table "tessera_identity"."device_refresh_tokens"
    add column "retry_sealed_successor" bytea null,
    add column "retry_until" timestamptz null,
    add column "retry_access_token_id" uuid null,
    add constraint "device_refresh_tokens_retry_access_token_id_foreign" foreign key ("retry_access_token_id") references "tessera_identity"."device_access_tokens" ("id"),
    add constraint "device_refresh_tokens_retry_check" check ((retry_sealed_successor is null) = (retry_until is null) and (retry_until is null) = (retry_access_token_id is null) and (retry_until is null or state = 'rotated')),
    add constraint "device_refresh_tokens_retry_sealed_successor_check" check (octet_length(retry_sealed_successor) >= 1 and octet_length(retry_sealed_successor) <= 4096)`,
  `create index "device_refresh_tokens_retry_until_index" on "tessera_identity"."device_refresh_tokens" ("retry_until") where retry_until is not null`,
];

const DOWN: readonly string[] = [
  `drop index "tessera_identity"."device_refresh_tokens_retry_until_index"`,
  `alter table "tessera_identity"."device_refresh_tokens"
    drop constraint "device_refresh_tokens_retry_sealed_successor_check",
    drop constraint "device_refresh_tokens_retry_check",
    drop constraint "device_refresh_tokens_retry_access_token_id_foreign",
    drop column "retry_access_token_id",
    drop column "retry_until",
    drop column "retry_sealed_successor"`,
  `drop index "tessera_identity"."device_token_families_expires_at_index"`,
  `drop index "tessera_identity"."device_grants_expires_at_index"`,
  `alter table "tessera_identity"."device_grants"
    drop constraint "device_grants_inspection_check",
    drop constraint "device_grants_inspected_by_session_id_foreign",
    drop column "inspected_at",
    drop column "inspected_by_session_id"`,
];

/**
 * Device grant inspection and the refresh retry window's sealed successor (issue 13), plus the
 * expiry indexes the maintenance purge walks.
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_DEVICE_RETRY_MIGRATION_NAME, class: Migration20261125000000IdentityDeviceRetry }] }
 */
export class Migration20261125000000IdentityDeviceRetry extends Migration {
  override async up(): Promise<void> {
    for (const statement of UP) this.addSql(statement);
    recordIdentityMigration(this, IDENTITY_DEVICE_RETRY_MIGRATION_NAME);
  }

  override async down(): Promise<void> {
    for (const statement of DOWN) this.addSql(statement);
    forgetIdentityMigration(this, IDENTITY_DEVICE_RETRY_MIGRATION_NAME);
  }
}
