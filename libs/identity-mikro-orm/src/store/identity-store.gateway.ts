import type { EntityManager } from '@mikro-orm/core';
import { StoreError, type StoreErrorCode, type StoreResult } from '@tessera/identity';
import {
  discardStatement,
  driverPool,
  runStatement,
  StalePreparedStatement,
  type DriverConnection,
  type StatementMode,
  type DriverPool,
  type Row,
} from './identity-store.statements.js';
import { allColumns } from './identity-row.fields.js';
import { storeFailureCode } from './identity-store.failures.js';

export type { Row } from './identity-store.statements.js';

/**
 * Runs one statement with `?` placeholders on the connection it is bound to (the command's
 * transaction, or a pooled connection for a read) and returns its rows.
 */
export type Sql = (query: string, params?: readonly unknown[], mode?: StatementMode) => Promise<Row[]>;

/** Qualified name of an identity table. */
export function table(name: string): string {
  return `tessera_identity.${name}`;
}

/**
 * Rolls the current command back with a typed failure; {@link StoreGateway.command} turns it into
 * `{ ok: false, code }`.
 */
export function abort(code: StoreErrorCode): never {
  throw new StoreError(code);
}

/** `insert … returning <every column>` of one row given as snake_case column → value. */
export async function insertRow(sql: Sql, name: string, row: Row): Promise<Row> {
  const names = Object.keys(row);
  const [inserted] = await sql(
    `insert into ${table(name)} (${names.map((c) => `"${c}"`).join(', ')}) values (${names.map(() => '?').join(', ')}) returning ${allColumns(name)}`,
    names.map((c) => row[c]),
  );
  return inserted ?? abort('internal');
}

/**
 * Inserts `rows` (all with the columns of the first) into `name` in one statement, returning nothing:
 * one round trip however many rows.
 */
export async function insertRows(sql: Sql, name: string, rows: readonly Row[], guard?: InsertGuard): Promise<Row[]> {
  const names = Object.keys(rows[0] ?? abort('internal'));
  const tuple = `(${names.map(() => '?').join(', ')})`;
  // The row count shapes the text: unnamed, so batches of every size never pile up as prepared statements.
  return sql(
    `${guard === undefined ? '' : `${guard.with} `}insert into ${table(name)} (${names.map((c) => `"${c}"`).join(', ')}) values ${rows.map(() => tuple).join(', ')}${guard === undefined ? '' : ` returning ${guard.returning}`}`,
    [...(guard?.params ?? []), ...rows.flatMap((row) => names.map((c) => row[c]))],
    rows.length === 1 ? 'named' : 'unnamed',
  );
}

/**
 * A `with` clause run by the same insert statement, and what the insert returns from it (one row
 * per inserted row): lets the last write of a command also check or lock something.
 */
export interface InsertGuard {
  /** `with name as (…)`, its `?` parameters in {@link params}. */
  readonly with: string;
  readonly params: readonly unknown[];
  /** The `returning` list (may read the `with` query). */
  readonly returning: string;
}

/**
 * A deterministic rejection whose writes (a failed challenge, its audits) commit: a command returns
 * it from its work and {@link StoreGateway.command} commits, then answers `{ ok: false, code }`.
 */
export class CommittedRejection {
  constructor(readonly code: StoreErrorCode) {}
}

const ANY_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `true` when `value` can be compared with a `uuid` column (anything else matches no row). */
export function isUuid(value: string): boolean {
  return ANY_UUID.test(value);
}

/**
 * The adapter's single way to the database: forks the root EntityManager per call, runs every
 * command in one READ COMMITTED transaction whose statements all use the transaction's own
 * connection (embedded PGlite has exactly one), maps every failure to a store code, and refuses
 * everything but the environment commands until the environment marker was verified
 * (identity-model §9.7).
 *
 * @example
 * const result = await gateway.command(async (sql) => mapSession(await insertRow(sql, 'sessions', row)));
 */
export class StoreGateway {
  private verified = false;

  constructor(private readonly root: EntityManager) {}

  /** Records the outcome of a provisioning or verification of the environment marker. */
  setVerified(verified: boolean): void {
    this.verified = verified;
  }

  /** One guarded command: one transaction, all or nothing (bar a committed rejection), failures as codes. */
  command<T>(work: (sql: Sql) => Promise<T | CommittedRejection>): Promise<StoreResult<T>> {
    if (!this.verified) return Promise.resolve({ ok: false, code: 'internal' });
    return this.transaction(work);
  }

  /**
   * One READ COMMITTED transaction without the environment guard (environment commands only), on
   * one pooled driver connection: `begin`, the work's statements, `commit` — or `rollback` and a
   * store code for whatever was thrown. A {@link CommittedRejection} commits, then fails.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T | CommittedRejection>): Promise<StoreResult<T>> {
    let connection: DriverConnection;
    try {
      connection = await this.pool().acquireConnection();
    } catch (error) {
      return { ok: false, code: storeFailureCode(error) };
    }
    try {
      for (let attempt = 0; ; attempt++) {
        const outcome = await runTransaction(connection, work);
        if (!(outcome instanceof StalePreparedStatement)) return outcome;
        // The statement failed before it ran and the transaction rolled back: run it all again, once.
        await discardStatement(connection, outcome);
        if (attempt === 1) return { ok: false, code: storeFailureCode(outcome.cause) };
      }
    } catch (error) {
      return { ok: false, code: storeFailureCode(error) };
    } finally {
      await this.pool().releaseConnection(connection);
    }
  }

  /**
   * One guarded command of a single statement: autocommit, no `begin`/`commit` round trips (the
   * statement is atomic on its own). Failures come back as codes, like {@link command}.
   */
  async statement<T>(work: (sql: Sql) => Promise<T>): Promise<StoreResult<T>> {
    if (!this.verified) return { ok: false, code: 'internal' };
    try {
      return { ok: true, value: await this.withConnection((connection) => work(bind(connection, false))) };
    } catch (error) {
      return { ok: false, code: storeFailureCode(error) };
    }
  }

  /** One guarded read outside a transaction; failures reject with a {@link StoreError}. */
  read<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.verified) {
      return Promise.reject(new StoreError('internal', { message: 'identity environment marker not verified' }));
    }
    return this.unguardedRead(work);
  }

  /** A read without the environment guard (environment verification only). */
  unguardedRead<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.withConnection((connection) => work(bind(connection, false)));
  }

  private async withConnection<T>(work: (connection: DriverConnection) => Promise<T>): Promise<T> {
    let connection: DriverConnection | undefined;
    try {
      connection = await this.pool().acquireConnection();
      return await work(connection);
    } catch (error) {
      throw error instanceof StoreError ? error : new StoreError(storeFailureCode(error), { cause: error });
    } finally {
      if (connection !== undefined) await this.pool().releaseConnection(connection);
    }
  }

  private pool(): DriverPool {
    return driverPool(this.root);
  }
}

/**
 * `begin`, the work, `commit` on one connection; a thrown failure rolls back and is rethrown, except
 * a {@link StalePreparedStatement}, which is returned so the caller can run the work again.
 */
async function runTransaction<T>(
  connection: DriverConnection,
  work: (sql: Sql) => Promise<T | CommittedRejection>,
): Promise<StoreResult<T> | StalePreparedStatement> {
  let open = false;
  try {
    await connection.query('begin isolation level read committed');
    open = true;
    const value = await work(bind(connection, true));
    open = false;
    await connection.query('commit');
    return value instanceof CommittedRejection ? { ok: false, code: value.code } : { ok: true, value };
  } catch (error) {
    if (open) await connection.query('rollback').catch(() => undefined);
    if (error instanceof StalePreparedStatement) return error;
    throw error;
  }
}

function bind(connection: DriverConnection, inTransaction: boolean): Sql {
  return (query, params = [], mode = 'named') => runStatement(connection, query, params, inTransaction, mode);
}
