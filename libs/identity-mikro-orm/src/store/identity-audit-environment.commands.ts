import {
  StoreError,
  type AuditEventInput,
  type Environment,
  type IdentityAuditCommands,
  type IdentityEnvironmentCommands,
  type StoreResult,
} from '@tessera/identity';
import { table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { insertAudit } from './identity-session.commands.js';

/** The (environment, namespace) pair of the singleton marker. */
type EnvironmentMarker = { environment: Environment; namespace: string };

/**
 * Standalone audit writes, and the environment marker of identity-model §9.7: provisioning writes
 * it once and never overwrites it; provisioning or verification decides whether the store serves
 * anything else.
 *
 * @example
 * const verified = await commands.verifyEnvironment({ environment: 'production', namespace: 'tessera_production' });
 */
export class IdentityAuditEnvironmentCommandHandlers implements IdentityAuditCommands, IdentityEnvironmentCommands {
  constructor(private readonly gateway: StoreGateway) {}

  appendAuditEvent(event: AuditEventInput): Promise<StoreResult<void>> {
    return this.gateway.command((sql) => insertAudit(sql, event));
  }

  /** A marker of another environment or namespace (or one the schema rejects) → `internal`. */
  async provisionEnvironment(marker: EnvironmentMarker): Promise<StoreResult<void>> {
    const result = await this.gateway.transaction(async (sql) => {
      await sql(
        `insert into ${table('environment')} (id, environment, namespace, created_at)
         values (true, ?, ?, statement_timestamp()) on conflict (id) do nothing`,
        [marker.environment, marker.namespace],
      );
      if (!(await markerMatches(sql, marker)))
        throw new StoreError('internal', { message: 'environment marker mismatch' });
    });
    return this.settle(result);
  }

  /** A missing or different marker → `internal`, and the store refuses every other operation. */
  async verifyEnvironment(marker: EnvironmentMarker): Promise<StoreResult<void>> {
    let result: StoreResult<void>;
    try {
      const matches = await this.gateway.unguardedRead((sql) => markerMatches(sql, marker));
      result = matches ? { ok: true, value: undefined } : { ok: false, code: 'internal' };
    } catch (error) {
      result = { ok: false, code: error instanceof StoreError ? error.code : 'internal' };
    }
    return this.settle(result);
  }

  /**
   * Opens the store on success and closes it on a definite refusal; an unreachable database
   * (`unavailable`) leaves the previous decision in place.
   */
  private settle(result: StoreResult<void>): StoreResult<void> {
    if (result.ok) {
      this.gateway.setVerified(true);
      return result;
    }
    if (result.code === 'unavailable') return result;
    this.gateway.setVerified(false);
    return { ok: false, code: 'internal' };
  }
}

async function markerMatches(sql: Sql, marker: EnvironmentMarker): Promise<boolean> {
  const [row] = await sql(`select environment, namespace from ${table('environment')} where id`);
  return row !== undefined && row['environment'] === marker.environment && row['namespace'] === marker.namespace;
}
