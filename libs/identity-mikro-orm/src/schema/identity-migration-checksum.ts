import { createHash } from 'node:crypto';
import { Migration, type MigrationObject } from '@tessera/database';

/**
 * Module name under which identity migrations are recorded in `tessera_identity.schema_migrations`.
 *
 * @example
 * await em.find(IdentitySchemaMigrationSchema, { module: IDENTITY_MIGRATION_MODULE });
 */
export const IDENTITY_MIGRATION_MODULE = 'identity';

/** One migration's name and the SHA-256 (lower-case hex) of the SQL its `up()` emits. */
export interface IdentityMigrationChecksum {
  readonly name: string;
  readonly checksum: string;
}

/**
 * SHA-256 over the SQL statements a migration's `up()` adds, each followed by a newline, as
 * lower-case hex: the value stored in `tessera_identity.schema_migrations.checksum` and compared at
 * start to refuse drift (`identity-model.md` §9.7). Nothing is executed: the migration only
 * collects its statements, so no database is needed.
 *
 * @example
 * const [{ name, checksum }] = await identityMigrationChecksums(identityMigrations);
 * // insert into tessera_identity.schema_migrations (module, version, checksum, applied_at)
 * //   values ('identity', name, checksum, now())
 */
export async function identityMigrationChecksums(
  migrations: readonly MigrationObject[],
): Promise<IdentityMigrationChecksum[]> {
  const checksums: IdentityMigrationChecksum[] = [];
  for (const { name, class: MigrationClass } of migrations) {
    // The driver and config are only used to execute statements, which collecting them never does.
    const migration = new MigrationClass(undefined as never, undefined as never);
    if (!(migration instanceof Migration)) throw new TypeError(`migration ${name} does not extend Migration`);
    await migration.up();
    const hash = createHash('sha256');
    for (const query of migration.getQueries()) {
      if (typeof query !== 'string')
        throw new TypeError(`migration ${name} adds a query builder; checksums need SQL text`);
      hash.update(query, 'utf8').update('\n', 'utf8');
    }
    checksums.push({ name, checksum: hash.digest('hex') });
  }
  return checksums;
}
