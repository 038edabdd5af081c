import 'reflect-metadata';
import { demoEntities, demoMigrations } from './database.js';
import { provisionIdentityDatabase } from './identity/demo-identity.provision.js';

/**
 * `npm run provision`: applies pending migrations to `DATABASE_URL` and writes the identity
 * environment marker for `TESSERA_ENVIRONMENT` (or, when unset, `NODE_ENV`: `staging` |
 * `production`) and `TESSERA_STORAGE_NAMESPACE` (default `tessera_<environment>`): the same
 * variables `npm start` reads (docs/deployment.md), so the app finds the marker it expects.
 */
async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must name the PostgreSQL server to provision');
  const environment = process.env.TESSERA_ENVIRONMENT || process.env.NODE_ENV;
  if (environment !== 'staging' && environment !== 'production') {
    throw new Error(
      'TESSERA_ENVIRONMENT (or NODE_ENV) must be "staging" or "production" (development and test provision at start)',
    );
  }
  const { applied, marker } = await provisionIdentityDatabase({
    database: { entities: demoEntities, migrations: { list: demoMigrations } },
    environment,
    namespace: process.env.TESSERA_STORAGE_NAMESPACE || undefined,
  });
  console.log(applied.length === 0 ? 'No pending migrations' : `Applied: ${applied.join(', ')}`);
  console.log(`Environment marker: ${marker.environment}/${marker.namespace}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
