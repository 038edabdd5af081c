/**
 * What a failed database call means for its caller, whatever layer raised it (`pg`, the PGlite
 * socket, knex's pool, MikroORM's driver exceptions):
 *
 * - `unavailable`: the database cannot answer now (connection refused or lost, pool acquire
 *   timeout, client-side query deadline, `statement_timeout` 57014, `lock_timeout` 55P03, class 08,
 *   too many connections, server shutting down). Retrying later may succeed.
 * - `invalid_data`: the database refused a value (SQLSTATE class 22: NUL in text, out of range, ...;
 *   and 08P01, see {@link sqlStateFailure}).
 * - `unique_violation`: 23505.
 * - `constraint_violation`: any other integrity constraint (class 23: check, not-null, foreign key).
 * - `transaction_conflict`: serialization failure or deadlock (40001, 40P01).
 *
 * @example
 * const kind: DatabaseFailureKind = 'unavailable';
 */
export type DatabaseFailureKind =
  'unavailable' | 'invalid_data' | 'unique_violation' | 'constraint_violation' | 'transaction_conflict';

const NETWORK_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages of `pg` and knex failures that carry no code. */
const CONNECTION_MESSAGES = [
  /Timeout acquiring a connection/i,
  /timeout exceeded when trying to connect/i,
  // `pg`'s own `connectionTimeoutMillis` (the connect bound) fails the connect with exactly this.
  /^timeout expired$/i,
  /Connection terminated/i,
  /Query read timeout/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  // knex hands out a transaction before its BEGIN has answered; when BEGIN fails (connection lost or
  // query deadline) the next statement fails with this instead, and the first error is not linked.
  /Transaction query already complete/i,
];

/** Error classes whose name alone says the connection is gone (knex's pool, MikroORM's driver). */
const UNAVAILABLE_NAMES = new Set(['KnexTimeoutError', 'ConnectionException', 'LockWaitTimeoutException']);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** How many `cause` / `previous` links are followed before giving up (cycles end there too). */
const MAX_CHAIN = 8;

/**
 * A recognised database failure: its {@link DatabaseFailureKind}, the SQLSTATE that said so (absent
 * when an errno, an error name or a message did) and the link of the error chain it was read from.
 *
 * @example
 * const failure = findDatabaseFailure(error);
 * if (failure?.sqlState === '23503') rejectMissingParent();
 */
export interface DatabaseFailure {
  readonly kind: DatabaseFailureKind;
  readonly sqlState?: string;
  readonly source: object;
}

/**
 * The links of an error's `cause` / `previous` (MikroORM) chain, the error itself first: at most
 * eight objects, ending at the first non-object or repeated link (cycles).
 *
 * @example
 * if (causeChain(error).some((link) => link instanceof MyError)) rethrow();
 */
export function causeChain(error: unknown): readonly object[] {
  const links: Record<string, unknown>[] = [];
  let current: unknown = error;
  while (links.length < MAX_CHAIN && isObject(current) && !links.includes(current)) {
    links.push(current);
    current = current['cause'] ?? current['previous'];
  }
  return links;
}

/**
 * Finds the first link of the error's {@link causeChain} that is recognisably a database failure
 * and says what it is; `undefined` when none is (a bug, a missing table, an error of the caller's
 * own). Reads SQLSTATEs from `sqlState` (MikroORM) and `code` (`pg`), network errnos, the names of
 * knex's and MikroORM's connection errors and the messages `pg` and knex give connection failures.
 * Never throws.
 *
 * @example
 * if (findDatabaseFailure(error)?.kind === 'unique_violation') throw new ConflictException();
 */
export function findDatabaseFailure(error: unknown): DatabaseFailure | undefined {
  for (const link of causeChain(error)) {
    const failure = classifyOne(link as Record<string, unknown>);
    if (failure !== undefined) return { ...failure, source: link };
  }
  return undefined;
}

/**
 * Classifies a database failure ({@link DatabaseFailureKind}) as {@link findDatabaseFailure} finds
 * it; `undefined` when the error is not recognisably a database failure. Never throws.
 *
 * @example
 * if (classifyDatabaseFailure(error) === 'unavailable') throw new ServiceUnavailableException();
 */
export function classifyDatabaseFailure(error: unknown): DatabaseFailureKind | undefined {
  return findDatabaseFailure(error)?.kind;
}

/**
 * The kind of failure a PostgreSQL SQLSTATE reports, `undefined` for states that are not one of
 * {@link DatabaseFailureKind} (syntax errors, undefined tables: programming errors).
 *
 * @example
 * sqlStateFailure('22021'); // 'invalid_data'
 */
export function sqlStateFailure(state: string): DatabaseFailureKind | undefined {
  if (state === '23505') return 'unique_violation';
  // MikroORM inlines values into the statement text, so a NUL in a string ends the protocol
  // message early: the server answers 08P01 "invalid message format" (22021 when bound as a
  // parameter) and keeps the connection. It is the value, not the connection, that failed.
  if (state === '08P01') return 'invalid_data';
  const failureClass = state.slice(0, 2);
  if (failureClass === '23') return 'constraint_violation';
  if (failureClass === '22') return 'invalid_data';
  if (state === '40001' || state === '40P01') return 'transaction_conflict';
  if (failureClass === '08' || state === '53300' || state === '57014' || state === '55P03') return 'unavailable';
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P05 idle session timeout.
  if (/^57P0[0-9]$/.test(state)) return 'unavailable';
  return undefined;
}

function classifyOne(error: Record<string, unknown>): Omit<DatabaseFailure, 'source'> | undefined {
  for (const key of ['sqlState', 'code'] as const) {
    const value = error[key];
    if (typeof value !== 'string') continue;
    if (SQLSTATE.test(value)) {
      const kind = sqlStateFailure(value);
      if (kind !== undefined) return { kind, sqlState: value };
    }
    if (NETWORK_ERRNO.has(value)) return { kind: 'unavailable' };
  }
  if (typeof error['name'] === 'string' && UNAVAILABLE_NAMES.has(error['name'])) return { kind: 'unavailable' };
  const message = error['message'];
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) {
    return { kind: 'unavailable' };
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
