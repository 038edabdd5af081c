import { IsolationLevel, type EntityManager } from '@mikro-orm/core';
import { classifyDatabaseError, StoreError, type StoreErrorCode, type StoreResult } from '@tessera/identity';

/** A raw result row: snake_case column → value (`timestamptz` arrive as `Date`, `integer` as `number`). */
export type Row = Record<string, unknown>;

/**
 * Runs one statement with `?` placeholders on the connection it is bound to (the command's
 * transaction, or a pooled connection for a read) and returns its rows.
 */
export type Sql = (query: string, params?: readonly unknown[]) => Promise<Row[]>;

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

/** `insert … returning *` of one row given as snake_case column → value. */
export async function insertRow(sql: Sql, name: string, row: Row): Promise<Row> {
  const columns = Object.keys(row);
  const [inserted] = await sql(
    `insert into ${table(name)} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')}) returning *`,
    columns.map((c) => row[c]),
  );
  return inserted ?? abort('internal');
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

  /** One guarded command: one transaction, all or nothing, failures as codes. */
  command<T>(work: (sql: Sql) => Promise<T>): Promise<StoreResult<T>> {
    if (!this.verified) return Promise.resolve({ ok: false, code: 'internal' });
    return this.transaction(work);
  }

  /** One transaction without the environment guard (environment commands only). */
  async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<StoreResult<T>> {
    try {
      const value = await this.root
        .fork()
        .transactional((em) => work(bind(em)), { isolationLevel: IsolationLevel.READ_COMMITTED });
      return { ok: true, value };
    } catch (error) {
      return { ok: false, code: classifyDatabaseError(error) };
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
  async unguardedRead<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await work(bind(this.root.fork()));
    } catch (error) {
      throw error instanceof StoreError ? error : new StoreError(classifyDatabaseError(error), { cause: error });
    }
  }
}

function bind(em: EntityManager): Sql {
  const connection = em.getConnection();
  const context = em.getTransactionContext();
  return async (query, params = []) => (await connection.execute<Row[]>(query, [...params], 'all', context)) as Row[];
}
