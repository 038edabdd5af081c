import { describe, expect, it } from '@jest/globals';
import { databaseFailureAnswer } from './viewset-errors.js';

const pg = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('databaseFailureAnswer', () => {
  it.each([
    ['a refused value (22021)', pg('22021', 'invalid byte sequence: 0x00 in "secret"'), 400, 'Bad Request'],
    ['a unique violation (23505)', pg('23505', 'Key (name)=(secret) already exists'), 409, 'Conflict'],
    ['a lost connection', new Error('Connection terminated unexpectedly'), 503, 'Service Unavailable'],
    [
      'a statement timeout (57014)',
      pg('57014', 'canceling statement due to statement timeout'),
      503,
      'Service Unavailable',
    ],
    ['a lock timeout (55P03)', pg('55P03', 'could not obtain lock on row'), 503, 'Service Unavailable'],
  ])('answers %s in Nest format without its text', (_case, error, status, message) => {
    const answer = databaseFailureAnswer(error)!;
    expect(answer.exception.getStatus()).toBe(status);
    expect(answer.exception.getResponse()).toEqual({ statusCode: status, message });
    expect(JSON.stringify(answer.exception.getResponse())).not.toContain('secret');
  });

  it('leaves other constraint violations, deadlocks and non-database errors to the generic 500', () => {
    for (const error of [pg('23514', 'check'), pg('23503', 'fk'), pg('40P01', 'deadlock'), new Error('db password=x')])
      expect(databaseFailureAnswer(error)).toBeUndefined();
  });
});
