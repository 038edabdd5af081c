import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { ForeignDatabaseError, refuseForeignDatabase } from '../../../apps/demo/src/startup/environment-guard.js';
import { postgresServerUrl, provisionedProductionDatabase, sql } from './production.support.js';

/**
 * A development start (`npm start` without NODE_ENV) pointed by DATABASE_URL at a production
 * database is refused before it migrates anything (the demo's main runs this guard before the app).
 */
describe('a development start against a database provisioned for production', () => {
  let production: TestDatabase;
  let fresh: TestDatabase;

  beforeAll(async () => {
    production = await provisionedProductionDatabase();
    fresh = await createTestDatabase({ url: postgresServerUrl(), prefix: 'tessera_fresh' });
  }, 120_000);

  afterAll(async () => {
    await production?.close();
    await fresh?.close();
  });

  it('is refused with what the database is provisioned for and how to start it, and nothing is migrated', async () => {
    const tables = 'select count(*)::int as n from information_schema.tables';
    const [before] = await sql<{ n: number }>(production.url, tables);
    const refusal = refuseForeignDatabase({ DATABASE_URL: production.url });
    await expect(refusal).rejects.toBeInstanceOf(ForeignDatabaseError);
    await expect(refusal).rejects.toThrow(/provisioned for production\/tessera_production.*NODE_ENV=production/);
    const [after] = await sql<{ n: number }>(production.url, tables);
    expect(after).toEqual(before);
  });

  it('lets a database without a marker (not provisioned yet) and embedded PGlite through', async () => {
    await expect(refuseForeignDatabase({ DATABASE_URL: fresh.url })).resolves.toBeUndefined();
    await expect(refuseForeignDatabase({})).resolves.toBeUndefined();
  });
});
