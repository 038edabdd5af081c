import { describe, expect, it } from '@jest/globals';
import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { causeChain, classifyDatabaseFailure, findDatabaseFailure, sqlStateFailure } from './database-errors.js';

const pg = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('classifyDatabaseFailure', () => {
  it.each([
    ['23505', 'unique_violation'],
    ['23514', 'constraint_violation'],
    ['23502', 'constraint_violation'],
    ['23503', 'constraint_violation'],
    ['22021', 'invalid_data'],
    ['22001', 'invalid_data'],
    ['22P02', 'invalid_data'],
    ['08P01', 'invalid_data'],
    ['40001', 'transaction_conflict'],
    ['40P01', 'transaction_conflict'],
    ['08006', 'unavailable'],
    ['08001', 'unavailable'],
    ['53300', 'unavailable'],
    ['57014', 'unavailable'],
    ['55P03', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
  ])('classifies SQLSTATE %s as %s', (state, kind) => {
    expect(classifyDatabaseFailure(pg(state))).toBe(kind);
    expect(sqlStateFailure(state)).toBe(kind);
  });

  it.each(['42P01', '42601', 'XX000', '0A000'])(
    'leaves SQLSTATE %s (neither bad data nor a lost database) unclassified',
    (state) => {
      expect(classifyDatabaseFailure(pg(state))).toBeUndefined();
    },
  );

  it('reads MikroORM driver exceptions, which copy the driver error onto themselves', () => {
    expect(classifyDatabaseFailure(new UniqueConstraintViolationException(pg('23505', 'duplicate key')))).toBe(
      'unique_violation',
    );
    expect(classifyDatabaseFailure(new ConnectionException(new Error('gone')))).toBe('unavailable');
  });

  it('follows cause and previous chains', () => {
    expect(classifyDatabaseFailure(new Error('outer', { cause: pg('22021') }))).toBe('invalid_data');
    expect(classifyDatabaseFailure(Object.assign(new Error('outer'), { previous: pg('ECONNRESET') }))).toBe(
      'unavailable',
    );
  });

  it.each([
    [
      'knex pool acquire timeout',
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
        name: 'KnexTimeoutError',
      }),
    ],
    ['pg connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'pg connectionTimeoutMillis expiry (wrapped by MikroORM)',
      Object.assign(new Error('timeout expired'), { name: 'DriverException', previous: new Error('timeout expired') }),
    ],
    ['pg lost connection', new Error('Connection terminated unexpectedly')],
    ['pg client-side query deadline', new Error('Query read timeout')],
    ['pg closed client', new Error('Client was closed and is not queryable')],
    [
      'knex transaction whose BEGIN failed',
      new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'),
    ],
    ['refused connection', pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['reset connection', pg('ECONNRESET')],
    ['unreachable host', pg('EHOSTUNREACH')],
  ])('treats a %s as unavailable', (_name, error) => {
    expect(classifyDatabaseFailure(error)).toBe('unavailable');
  });

  it('leaves errors that are not database failures unclassified', () => {
    for (const error of [new Error('db password=x'), new TypeError('x is undefined'), 'text', null, undefined, 42])
      expect(classifyDatabaseFailure(error)).toBeUndefined();
    expect(classifyDatabaseFailure(pg('EPERM'))).toBeUndefined();
  });

  it('terminates on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = new Error('b', { cause: a });
    expect(classifyDatabaseFailure(a)).toBeUndefined();
  });
});

describe('findDatabaseFailure', () => {
  it('names the SQLSTATE and the link of the chain the failure was read from', () => {
    const driver = pg('23503', 'foreign key');
    const outer = new Error('outer', { cause: driver });
    expect(findDatabaseFailure(outer)).toEqual({ kind: 'constraint_violation', sqlState: '23503', source: driver });
  });

  it('gives no SQLSTATE when an errno, an error name or a message said so', () => {
    const reset = pg('ECONNRESET');
    expect(findDatabaseFailure(reset)).toEqual({ kind: 'unavailable', source: reset });
    const knex = Object.assign(new Error('pool'), { name: 'KnexTimeoutError' });
    expect(findDatabaseFailure(knex)).toEqual({ kind: 'unavailable', source: knex });
  });

  it('is undefined for errors that are not database failures', () => {
    expect(findDatabaseFailure(new Error('nothing'))).toBeUndefined();
  });
});

describe('causeChain', () => {
  it('lists the error, then its cause and previous links, and stops at cycles and non-objects', () => {
    const inner = pg('40001');
    const middle = Object.assign(new Error('middle'), { previous: inner });
    const outer = new Error('outer', { cause: middle });
    expect(causeChain(outer)).toEqual([outer, middle, inner]);
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(causeChain(a)).toEqual([a, b]);
    expect(causeChain('text')).toEqual([]);
  });

  it('follows at most eight links', () => {
    let error: Error = new Error('0');
    for (let index = 1; index < 12; index++) error = new Error(String(index), { cause: error });
    expect(causeChain(error)).toHaveLength(8);
  });
});
