/** Shared setup of the identity-schema constraint specs: their suite title and a migrated identity database. */
import { afterAll, beforeAll } from '@jest/globals';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import { identityEntities } from '../../../libs/identity-mikro-orm/src/entities/identity.entities.js';
import { identityMigrations } from '../../../libs/identity-mikro-orm/src/migrations/identity-migrations.js';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
} from '../../../libs/identity-mikro-orm/src/schema/identity-schema.values.js';
import type { Row } from './identity-rows.fixture.js';

/** The top-level describe title every constraint spec shares, naming the database it runs on. */
export const CONSTRAINTS_SUITE = `identity schema constraints (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`;

/** The open database of one spec file: its ORM, and raw SQL on a fresh fork of the entity manager. */
export interface ConstraintsDatabase {
  readonly orm: OpenDatabase['orm'];
  sql(query: string, params?: unknown[]): Promise<Row[]>;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that open a fresh, migrated identity database (embedded
 * PGlite, or a new database of the DATABASE_URL server when it is set) and close it again.
 */
export function useConstraintsDatabase(): ConstraintsDatabase {
  let testDb: TestDatabase;
  let db: OpenDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({
      url: testDb.url,
      entities: [...identityEntities],
      migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
    });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.close();
  });

  return {
    get orm() {
      return db.orm;
    },
    sql: (query, params = []) => db.orm.em.fork().getConnection().execute<Row[]>(query, params),
  };
}
