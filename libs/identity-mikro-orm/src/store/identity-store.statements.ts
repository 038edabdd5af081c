import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';

/** A raw result row: snake_case column → value (`timestamptz` arrive as `Date`, `integer` as `number`). */
export type Row = Record<string, unknown>;

/** A `pg` client connection (the driver's own; `connection.parsedStatements` is its parse cache). */
export interface DriverConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
  readonly connection?: { parsedStatements?: Record<string, string> };
}

/** The knex client's pool of `pg` connections (the one MikroORM uses). */
export interface DriverPool {
  acquireConnection(): Promise<DriverConnection>;
  releaseConnection(connection: DriverConnection): Promise<unknown>;
}

/** The driver's connection pool behind a MikroORM EntityManager (the same connections, no query builder). */
export function driverPool(em: EntityManager): DriverPool {
  return (em.getConnection() as unknown as { getKnex(): { client: DriverPool } }).getKnex().client;
}

/**
 * SQLSTATEs of a prepared statement whose server-side state disagrees with the driver's cache:
 * `42P05` the name exists on the session but the driver never parsed it on this connection (a
 * recycled connection on a shared embedded session), `26000` the driver thinks it parsed a name the
 * session does not hold, `0A000` the statement's result type changed under it (a migration).
 */
const STALE = new Set(['42P05', '26000', '0A000']);

/** A store statement failed on a stale prepared statement inside a transaction (which is now aborted). */
export class StalePreparedStatement extends Error {
  constructor(
    readonly statementName: string,
    readonly sqlState: string,
    cause: unknown,
  ) {
    super(`prepared statement ${statementName} is stale (${sqlState})`, { cause });
  }
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
 * multiplexes every socket connection onto one backend session, where two live connections
 * preparing the same name would collide.
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

/**
 * How a statement is sent: `named` (default) prepares it once per connection; `unnamed` uses the
 * extended protocol's unnamed statement, parsed per execution and never kept by the server — for
 * statements whose text comes from client input (SCIM filters: every filter shape is another
 * text), so a client cannot grow the prepared statements of every pooled connection without bound.
 */
export type StatementMode = 'named' | 'unnamed';

/**
 * THE way a store statement reaches the database: a named prepared statement on `connection` (or
 * the unnamed statement, {@link StatementMode}). On
 * a stale prepared statement ({@link STALE}) the statement never ran (the failure is at parse or
 * bind), so outside a transaction it is discarded and retried once; inside one the transaction is
 * aborted, so it is discarded and {@link StalePreparedStatement} tells the transaction to roll
 * back and run again.
 */
export async function runStatement(
  connection: DriverConnection,
  query: string,
  params: readonly unknown[],
  inTransaction: boolean,
  mode: StatementMode = 'named',
): Promise<Row[]> {
  if (mode === 'unnamed') {
    let index = 0;
    const text = query.replace(/\?/g, () => `$${++index}`);
    return (await connection.query({ text, values: [...params] })).rows;
  }
  const statement = statementOn(connection, query, params);
  try {
    return (await connection.query(statement)).rows;
  } catch (error) {
    const state = staleState(error);
    if (state === undefined) throw error;
    forgetParse(connection, statement.name);
    if (inTransaction) throw new StalePreparedStatement(statement.name, state, error);
    await deallocate(connection, statement.name, state);
    return (await connection.query(statement)).rows;
  }
}

/** After a {@link StalePreparedStatement}, once the transaction is rolled back: frees the name on the server. */
export function discardStatement(connection: DriverConnection, stale: StalePreparedStatement): Promise<void> {
  return deallocate(connection, stale.statementName, stale.sqlState);
}

function staleState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STALE.has(code) ? code : undefined;
}

/** Drops `pg`'s record that `name` is parsed on this connection, so the next run sends Parse again. */
function forgetParse(connection: DriverConnection, name: string): void {
  const parsed = connection.connection?.parsedStatements;
  if (parsed !== undefined) delete parsed[name];
}

/** `26000` means the server has no such statement: nothing to free. */
async function deallocate(connection: DriverConnection, name: string, state: string): Promise<void> {
  if (state === '26000') return;
  await connection.query(`deallocate "${name}"`).catch((error: unknown) => {
    if (staleState(error) !== '26000') throw error;
  });
}
