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
 * A ledger bookkeeping statement: an `insert into tessera_identity.schema_migrations` (names quoted
 * or not, any case and spacing). Checksums leave these out, since a migration's own ledger row
 * carries its checksum and would otherwise have to hash itself.
 */
const LEDGER_STATEMENT = /^\s*insert\s+into\s+"?tessera_identity"?\s*\.\s*"?schema_migrations"?[\s(]/i;

/**
 * `true` for a ledger bookkeeping statement (an insert into `tessera_identity.schema_migrations`),
 * which {@link identityMigrationChecksum} leaves out.
 *
 * @example
 * isIdentityLedgerStatement(`insert into "tessera_identity"."schema_migrations" (...) values (...);`); // true
 */
export function isIdentityLedgerStatement(statement: string): boolean {
  return LEDGER_STATEMENT.test(statement);
}

/**
 * The checksum rule of `identity-model.md` §9.7: SHA-256 over the SQL statements a migration's
 * `up()` adds, in order, each followed by a newline, leaving out ledger bookkeeping statements
 * ({@link isIdentityLedgerStatement}), as lower-case hex. Identity migrations add literal SQL only
 * (`addSql` with a string, never `execute()` or a query builder), so the SQL is the whole migration.
 *
 * @example
 * const checksum = identityMigrationChecksum(migration.getQueries());
 */
export function identityMigrationChecksum(statements: readonly unknown[]): string {
  const hash = createHash('sha256');
  for (const statement of statements) {
    if (typeof statement !== 'string') throw new TypeError('a query builder was added; checksums need SQL text');
    if (isIdentityLedgerStatement(statement)) continue;
    hash.update(statement, 'utf8').update('\n', 'utf8');
  }
  return hash.digest('hex');
}

/**
 * The {@link identityMigrationChecksum} of each migration, in order: the values stored in
 * `tessera_identity.schema_migrations.checksum` and compared at start to refuse drift
 * (`identity-model.md` §9.7). Nothing is executed: each migration only collects its statements, so
 * no database is needed.
 *
 * @example
 * const [{ name, checksum }] = await identityMigrationChecksums(identityMigrations);
 * // the row ('identity', name, checksum, applied_at) of tessera_identity.schema_migrations
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
    const statements = migration.getQueries();
    if (statements.some((statement) => typeof statement !== 'string'))
      throw new TypeError(`migration ${name} adds a query builder; checksums need SQL text`);
    checksums.push({ name, checksum: identityMigrationChecksum(statements) });
  }
  return checksums;
}
