import { demoEntities } from '../database.js';
import { environmentMarkerAdvice, readEnvironmentMarker } from '../identity/demo-identity.provision.js';

/** A development start refused before it touched a database provisioned for another environment. */
export class ForeignDatabaseError extends Error {
  override readonly name = 'ForeignDatabaseError';
}

/**
 * Refuses a development start (which applies migrations automatically) against a PostgreSQL
 * database provisioned for another environment, **before** anything is migrated: otherwise the
 * demo's pending migrations would reach, say, a production database, and only then would the
 * identity start refuse its environment marker. Embedded PGlite (no `DATABASE_URL`) is the demo's
 * own; a database without a marker has not been provisioned and is left to the usual start.
 *
 * @example
 * if (!deployedFromEnv(process.env)) await refuseForeignDatabase(process.env);
 */
export async function refuseForeignDatabase(env: NodeJS.ProcessEnv): Promise<void> {
  const url = env.DATABASE_URL;
  if (!url) return;
  const found = await readEnvironmentMarker({ url, entities: demoEntities });
  if (found === undefined || found.environment === 'development') return;
  throw new ForeignDatabaseError(
    environmentMarkerAdvice(found, { environment: 'development', namespace: 'tessera_development' }),
  );
}
