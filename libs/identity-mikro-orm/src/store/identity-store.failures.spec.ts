import { describe, expect, it } from '@jest/globals';
import { StoreError } from '@tessera/identity';
import { storeFailureCode } from './identity-store.failures.js';

const pg = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('storeFailureCode', () => {
  it.each([
    ['23505', 'unique_constraint'],
    ['23503', 'invalid_transition'],
    ['23514', 'invalid_transition'],
    ['22P02', 'invalid_transition'],
    ['40001', 'version_conflict'],
    ['40P01', 'version_conflict'],
    ['08006', 'unavailable'],
    ['08003', 'unavailable'],
    ['08P01', 'unavailable'],
    ['53300', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
    ['57014', 'unavailable'],
    ['55P03', 'unavailable'],
    ['23502', 'internal'],
    ['22021', 'internal'],
    ['42P01', 'internal'],
    ['XX000', 'internal'],
  ])('classifies SQLSTATE %s as %s', (state, expected) => {
    expect(storeFailureCode(pg(state))).toBe(expected);
  });

  it('reads MikroORM driver exceptions (sqlState) and wrapped causes', () => {
    const driver = Object.assign(new Error('unique'), {
      name: 'UniqueConstraintViolationException',
      sqlState: '23505',
    });
    expect(storeFailureCode(driver)).toBe('unique_constraint');
    expect(storeFailureCode(new Error('outer', { cause: pg('40P01') }))).toBe('version_conflict');
    expect(storeFailureCode(Object.assign(new Error('outer'), { previous: pg('23514') }))).toBe('invalid_transition');
  });

  it('treats connection and pool timeouts as unavailable', () => {
    const knex = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
      name: 'KnexTimeoutError',
    });
    expect(storeFailureCode(knex)).toBe('unavailable');
    expect(storeFailureCode(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    expect(storeFailureCode(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(storeFailureCode(pg('ECONNREFUSED'))).toBe('unavailable');
    expect(storeFailureCode(pg('ECONNRESET'))).toBe('unavailable');
  });

  it('keeps the code of a StoreError met before the database failure and falls back to internal', () => {
    expect(storeFailureCode(new StoreError('last_owner'))).toBe('last_owner');
    expect(storeFailureCode(new StoreError('invalid_transition', { cause: pg('23505') }))).toBe('invalid_transition');
    expect(storeFailureCode(new Error('outer', { cause: new StoreError('not_found') }))).toBe('not_found');
    expect(storeFailureCode(Object.assign(pg('40001'), { cause: new StoreError('last_owner') }))).toBe(
      'version_conflict',
    );
    expect(storeFailureCode(new Error('environment marker mismatch'))).toBe('internal');
    expect(storeFailureCode('string')).toBe('internal');
    expect(storeFailureCode(null)).toBe('internal');
  });

  it('terminates on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(storeFailureCode(a)).toBe('internal');
  });
});
