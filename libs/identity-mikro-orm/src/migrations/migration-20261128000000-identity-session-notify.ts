import { Migration } from '@tessera/database';
import { forgetIdentityMigration, recordIdentityMigration } from './identity-migration-ledger.js';

/** Name of this migration in `identityMigrations` and in the ledger. */
export const IDENTITY_SESSION_NOTIFY_MIGRATION_NAME = 'tessera_identity_20261128000000_session_notify';

/**
 * The channel on which committed session and user changes are published (issue 16 part 2): the
 * payload is the comma-separated ids of the users whose sessions or user row changed, or `*` when
 * the list would not fit the 8,000-byte `NOTIFY` payload.
 */
export const IDENTITY_SESSION_CHANGE_CHANNEL = 'tessera_identity_session_changes';

/*
 * Issue 16 part 2: every instance keeps a per-process cache of validated session reads, dropped on
 * the `NOTIFY` these triggers send. A trigger runs inside the writing statement's transaction, so
 * the notice is delivered on commit only, and it covers every writer: store commands, SCIM effects
 * in writable CTEs, maintenance, an operator's SQL.
 * - `sessions`: an update that changes anything but the idle touch's columns (`last_used_at`,
 *   `updated_at`, `version`, and `idle_expires_at` moved later), and the delete of a row that was
 *   still usable;
 * - `users`: every update and delete.
 * Statement-level with transition tables: one notice per statement, whatever the row count.
 */
const UP: readonly string[] = [
  `create function "tessera_identity"."notify_session_changes"() returns trigger language plpgsql as $$
declare
  ids text;
begin
  if TG_TABLE_NAME = 'users' then
    select string_agg(distinct o.id::text, ',') into ids from old_rows o;
  elsif TG_OP = 'DELETE' then
    select string_agg(distinct o.user_id::text, ',') into ids from old_rows o
      where o.state = 'active' and o.idle_expires_at > now() and o.absolute_expires_at > now();
  else
    select string_agg(distinct o.user_id::text, ',') into ids from old_rows o join new_rows n on n.id = o.id
      where n.idle_expires_at < o.idle_expires_at
        or to_jsonb(o) - array['last_used_at', 'idle_expires_at', 'updated_at', 'version']
          is distinct from to_jsonb(n) - array['last_used_at', 'idle_expires_at', 'updated_at', 'version'];
  end if;
  if ids is not null then
    perform pg_notify('${IDENTITY_SESSION_CHANGE_CHANNEL}', case when octet_length(ids) > 7900 then '*' else ids end);
  end if;
  return null;
end
$$`,
  `create trigger "sessions_notify_update" after update on "tessera_identity"."sessions" referencing old table as old_rows new table as new_rows for each statement execute function "tessera_identity"."notify_session_changes"()`,
  `create trigger "sessions_notify_delete" after delete on "tessera_identity"."sessions" referencing old table as old_rows for each statement execute function "tessera_identity"."notify_session_changes"()`,
  `create trigger "users_notify_update" after update on "tessera_identity"."users" referencing old table as old_rows for each statement execute function "tessera_identity"."notify_session_changes"()`,
  `create trigger "users_notify_delete" after delete on "tessera_identity"."users" referencing old table as old_rows for each statement execute function "tessera_identity"."notify_session_changes"()`,
];

const DOWN: readonly string[] = [
  `drop trigger "users_notify_delete" on "tessera_identity"."users"`,
  `drop trigger "users_notify_update" on "tessera_identity"."users"`,
  `drop trigger "sessions_notify_delete" on "tessera_identity"."sessions"`,
  `drop trigger "sessions_notify_update" on "tessera_identity"."sessions"`,
  `drop function "tessera_identity"."notify_session_changes"()`,
];

/**
 * Session and user change notices for the cross-instance session cache (issue 16 part 2).
 *
 * @example
 * migrations: { list: [{ name: IDENTITY_SESSION_NOTIFY_MIGRATION_NAME, class: Migration20261128000000IdentitySessionNotify }] }
 */
export class Migration20261128000000IdentitySessionNotify extends Migration {
  override async up(): Promise<void> {
    for (const statement of UP) this.addSql(statement);
    recordIdentityMigration(this, IDENTITY_SESSION_NOTIFY_MIGRATION_NAME);
  }

  override async down(): Promise<void> {
    for (const statement of DOWN) this.addSql(statement);
    forgetIdentityMigration(this, IDENTITY_SESSION_NOTIFY_MIGRATION_NAME);
  }
}
