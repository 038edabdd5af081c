import 'reflect-metadata';
import { runMigrations } from '@tessera/database';
import { demoEntities, demoMigrations } from './database.js';

/** `npm run migrate`: applies pending migrations to `DATABASE_URL` (staging, production). */
async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must name the PostgreSQL server to migrate');
  const applied = await runMigrations({ entities: demoEntities, migrations: { list: demoMigrations } });
  console.log(applied.length === 0 ? 'No pending migrations' : `Applied: ${applied.join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
