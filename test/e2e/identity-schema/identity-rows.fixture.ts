/** Entry point of the identity row fixture: `IdentityRows` (every table's builder), rollback and failure helpers. */
import type { MikroORM } from '@mikro-orm/core';
import { OperationsRows } from './identity-rows.operations.js';
import type { IdentityTable, Row, Sql } from './identity-rows.values.js';

export {
  b64,
  IDENTITY_TABLES,
  storageKey,
  textArrayLiteral,
  uuidV7,
  type IdentityTable,
  type Row,
  type Sql,
} from './identity-rows.values.js';

/**
 * Builders of valid rows for every identity table, inserted with raw SQL. Each builder takes
 * column overrides; missing parents (users, organizations, grants, …) are created on the fly, so
 * a test names only the columns it is about.
 */
export class IdentityRows extends OperationsRows {
  /** Inserts a default row of `table` (the dispatcher used by table-driven tests). */
  async any(table: IdentityTable, over: Row = {}): Promise<Row> {
    return this[camel(table)](over);
  }
}

type Builder = {
  [K in keyof IdentityRows]: IdentityRows[K] extends (over?: Row) => Promise<Row> ? K : never;
}[keyof IdentityRows];

function camel(table: IdentityTable): Builder {
  return table.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as Builder;
}

/** Thrown to roll a test transaction back. */
const ROLLBACK = Symbol('rollback');

/**
 * Runs `work` inside a transaction that is always rolled back, so every test starts from the same
 * (empty) tables; returns what `work` returned.
 */
export async function inRollback<T>(orm: MikroORM, work: (rows: IdentityRows, sql: Sql) => Promise<T>): Promise<T> {
  const connection = orm.em.getConnection();
  let result: { value: T } | undefined;
  try {
    await connection.transactional(async (trx) => {
      const sql: Sql = (query, params = []) => connection.execute<Row[]>(query, params, 'all', trx);
      result = { value: await work(new IdentityRows(sql), sql) };
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return result!.value;
}

/** The error `work` fails with, or `undefined` when it succeeds. */
export async function failure(
  work: () => Promise<unknown>,
): Promise<{ code?: string; constraint?: string } | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return error as { code?: string; constraint?: string };
  }
}
