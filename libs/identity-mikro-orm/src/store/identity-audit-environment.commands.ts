import {
  StoreError,
  type AuditEventInput,
  type DatabaseEngine,
  type Environment,
  type EnvironmentRefusal,
  type EnvironmentResult,
  type IdentityAuditCommands,
  type IdentityEnvironmentCommands,
  type SchemaVersionState,
  type StoreResult,
} from '@tessera/identity';
import { identityMigrations } from '../migrations/identity-migrations.js';
import { IDENTITY_MIGRATION_MODULE, identityMigrationChecksums } from '../schema/identity-migration-checksum.js';
import { table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { insertAudit } from './identity-session.commands.js';

/** The (environment, namespace) pair of the singleton marker. */
type EnvironmentMarker = { environment: Environment; namespace: string };

/** What provisioning or verification found: nothing wrong, or the check that failed. */
type EnvironmentCheck = 'verified' | EnvironmentRefusal;

/**
 * Standalone audit writes, and the environment checks of identity-model §9.7: the environment
 * marker (provisioning writes it once and never overwrites it) and the schema version (the ledger
 * `tessera_identity.schema_migrations` holds exactly this build's identity migrations with their
 * checksums). Provisioning or verification decides whether the store serves anything else.
 *
 * @example
 * const verified = await commands.verifyEnvironment({ environment: 'production', namespace: 'tessera_production' });
 */
export class IdentityAuditEnvironmentCommandHandlers implements IdentityAuditCommands, IdentityEnvironmentCommands {
  constructor(private readonly gateway: StoreGateway) {}

  appendAuditEvent(event: AuditEventInput): Promise<StoreResult<void>> {
    return this.gateway.command((sql) => insertAudit(sql, event));
  }

  /**
   * Writes the marker when absent, in one transaction with both checks. A marker of another
   * environment or namespace (or one the schema rejects) → `environment_marker`; a ledger that is
   * not this build's → `schema_version`, and no marker is written.
   */
  async provisionEnvironment(marker: EnvironmentMarker): Promise<EnvironmentResult> {
    const result = await this.gateway.transaction(async (sql): Promise<EnvironmentCheck> => {
      const existing = await readMarker(sql);
      if (existing !== undefined && !sameMarker(existing, marker)) return 'environment_marker';
      if (!(await ledgerMatches(sql))) return 'schema_version';
      await sql(
        `insert into ${table('environment')} (id, environment, namespace, created_at)
         values (true, ?, ?, statement_timestamp()) on conflict (id) do nothing`,
        [marker.environment, marker.namespace],
      );
      // A concurrent provisioning may have written another marker first.
      return sameMarker(await readMarker(sql), marker) ? 'verified' : 'environment_marker';
    });
    return this.settle(result);
  }

  /**
   * A missing or different marker → `environment_marker`; a ledger that is not this build's →
   * `schema_version`; either way the store refuses every other operation.
   */
  async verifyEnvironment(marker: EnvironmentMarker): Promise<EnvironmentResult> {
    let result: StoreResult<EnvironmentCheck>;
    try {
      const check = await this.gateway.unguardedRead(async (sql): Promise<EnvironmentCheck> => {
        if (!sameMarker(await readMarker(sql), marker)) return 'environment_marker';
        return (await ledgerMatches(sql)) ? 'verified' : 'schema_version';
      });
      result = { ok: true, value: check };
    } catch (error) {
      result = { ok: false, code: error instanceof StoreError ? error.code : 'internal' };
    }
    return this.settle(result);
  }

  /** PGlite reports itself in `version()` (`… (PGlite x.y) on wasm32-unknown-emscripten …`). */
  inspectDatabaseEngine(): Promise<DatabaseEngine> {
    return this.gateway.unguardedRead(async (sql) => {
      const [row] = await sql('select version() as version');
      const version = String(row?.['version'] ?? '');
      return /pglite|emscripten|wasm32/i.test(version) ? 'pglite' : 'postgresql';
    });
  }

  /** The ledger check alone, without the marker and without touching the store's open state. */
  inspectSchemaVersion(): Promise<SchemaVersionState> {
    return this.gateway.unguardedRead(ledgerState);
  }

  /**
   * Opens the store on success and closes it on a definite refusal (`internal`, naming the failed
   * check; a database error counts as a marker refusal); an unreachable database (`unavailable`)
   * leaves the previous decision in place.
   */
  private settle(result: StoreResult<EnvironmentCheck>): EnvironmentResult {
    if (!result.ok && result.code === 'unavailable') return result;
    const check = result.ok ? result.value : 'environment_marker';
    this.gateway.setVerified(check === 'verified');
    return check === 'verified' ? { ok: true, value: undefined } : { ok: false, code: 'internal', refusal: check };
  }
}

async function readMarker(sql: Sql): Promise<EnvironmentMarker | undefined> {
  const [row] = await sql(`select environment, namespace from ${table('environment')} where id`);
  return row === undefined
    ? undefined
    : { environment: row['environment'] as Environment, namespace: String(row['namespace']) };
}

function sameMarker(stored: EnvironmentMarker | undefined, expected: EnvironmentMarker): boolean {
  return stored !== undefined && stored.environment === expected.environment && stored.namespace === expected.namespace;
}

let expectedLedger: Promise<ReadonlyMap<string, string>> | undefined;

/** Version → checksum of every identity migration of this build, computed once, on first use. */
function expectedIdentityLedger(): Promise<ReadonlyMap<string, string>> {
  expectedLedger ??= identityMigrationChecksums(identityMigrations).then(
    (checksums) => new Map(checksums.map(({ name, checksum }) => [name, checksum])),
  );
  return expectedLedger;
}

/**
 * What the identity rows of the ledger say of the schema: `current` (exactly this build's
 * migrations with their checksums), `newer` (all of them plus versions this build does not know: a
 * newer build migrated the database), `behind` (a migration of this build is missing) or `drift`
 * (one holds another checksum: a released migration was edited). The first that applies of drift,
 * behind, newer.
 */
async function ledgerState(sql: Sql): Promise<SchemaVersionState> {
  const expected = await expectedIdentityLedger();
  const rows = await sql(`select version, checksum from ${table('schema_migrations')} where module = ?`, [
    IDENTITY_MIGRATION_MODULE,
  ]);
  const recorded = new Map(rows.map((row) => [String(row['version']), row['checksum']]));
  if ([...expected].some(([version, checksum]) => recorded.has(version) && recorded.get(version) !== checksum)) {
    return 'drift';
  }
  if ([...expected.keys()].some((version) => !recorded.has(version))) return 'behind';
  // (module, version) is the primary key: every expected version is there, so more rows are unknown ones.
  return recorded.size > expected.size ? 'newer' : 'current';
}

/** The start's rule: the ledger is exactly this build's (a newer build's ledger refuses too). */
async function ledgerMatches(sql: Sql): Promise<boolean> {
  return (await ledgerState(sql)) === 'current';
}
