import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
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
      return { ok: false, code: classifyDatabaseError(error) };
    }
    let open = false;
    try {
      await connection.query('begin isolation level read committed');
      open = true;
      const value = await work(bind(connection));
      open = false;
      await connection.query('commit');
      return value instanceof CommittedRejection ? { ok: false, code: value.code } : { ok: true, value };
    } catch (error) {
      if (open) await connection.query('rollback').catch(() => undefined);
      return { ok: false, code: classifyDatabaseError(error) };
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
      return { ok: true, value: await this.withConnection((connection) => work(bind(connection))) };
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

  /**
   * A guarded read of one named prepared statement (`$n` placeholders) on a pooled connection: the
   * per-request credential check, parsed and planned once per connection.
   */
  async preparedRead(name: string, text: string, values: readonly unknown[]): Promise<Row[]> {
    if (!this.verified) throw new StoreError('internal', { message: 'identity environment marker not verified' });
    return this.withConnection(
      // Tagged like every other statement: two instances on one embedded PGlite share its session.
      async (connection) =>
        (await connection.query({ name: `${name}_${tag(connection)}`, text, values: [...values] })).rows,
    );
  }

  /** A read without the environment guard (environment verification only). */
  unguardedRead<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.withConnection((connection) => work(bind(connection)));
  }

  private async withConnection<T>(work: (connection: DriverConnection) => Promise<T>): Promise<T> {
    let connection: DriverConnection | undefined;
    try {
      connection = await this.pool().acquireConnection();
      return await work(connection);
    } catch (error) {
      throw error instanceof StoreError ? error : new StoreError(classifyDatabaseError(error), { cause: error });
    } finally {
      if (connection !== undefined) await this.pool().releaseConnection(connection);
    }
  }

  /** The driver's connection pool behind MikroORM (the same connections, no query builder). */
  private pool(): DriverPool {
    return (this.root.getConnection() as unknown as { getKnex(): { client: DriverPool } }).getKnex().client;
  }
}

/** The knex client's pool of `pg` connections (the one MikroORM uses). */
interface DriverPool {
  acquireConnection(): Promise<DriverConnection>;
  releaseConnection(connection: DriverConnection): Promise<unknown>;
}

/** A `pg` client connection. */
export interface DriverConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

const STATEMENTS = new Map<string, { name: string; text: string }>();
const CONNECTION_TAGS = new WeakMap<DriverConnection, string>();
let connectionCount = 0;

/**
 * The named prepared statement for a `?`-placeholder query: `$n` placeholders and a name derived
 * from the text, so each connection parses and plans every store statement once (memoised).
 */
function prepared(query: string): { name: string; text: string } {
  let statement = STATEMENTS.get(query);
  if (statement === undefined) {
    let index = 0;
    const text = query.replace(/\?/g, () => `$${++index}`);
    statement = { name: `tessera_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
    if (STATEMENTS.size < 1000) STATEMENTS.set(query, statement);
  }
  return statement;
}

/**
 * Statement names are scoped to the driver connection that prepared them: embedded PGlite
 * multiplexes every socket connection onto one backend session, where two connections preparing
 * the same name would collide.
 */
function tag(connection: DriverConnection): string {
  let value = CONNECTION_TAGS.get(connection);
  if (value === undefined) {
    value = (++connectionCount).toString(36);
    CONNECTION_TAGS.set(connection, value);
  }
  return value;
}

/** `pg` query config of a store statement on `connection`. */
export function statementOn(connection: DriverConnection, query: string, values: readonly unknown[]) {
  const { name, text } = prepared(query);
  return { name: `${name}_${tag(connection)}`, text, values: [...values] };
}

function bind(connection: DriverConnection): Sql {
  return async (query, params = []) => (await connection.query(statementOn(connection, query, params))).rows;
}
