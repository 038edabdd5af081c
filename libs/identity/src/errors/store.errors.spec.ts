import { describe, expect, it } from '@jest/globals';
import {
  classifyDatabaseError,
  mapStoreError,
  STORE_ERROR_CODES,
  StoreError,
  type StoreErrorCode,
} from './store.errors.js';

describe('mapStoreError', () => {
  it.each<[StoreErrorCode, string, string]>([
    ['not_found', 'challenge_invalid', 'not_found'],
    ['challenge_not_pending', 'challenge_invalid', 'challenge_invalid'],
    ['challenge_expired', 'challenge_invalid', 'challenge_invalid'],
    ['already_exists', 'invalid_credentials', 'conflict'],
    ['unique_constraint', 'invalid_credentials', 'conflict'],
    ['last_owner', 'invalid_credentials', 'conflict'],
    ['invalid_transition', 'invalid_credentials', 'invalid_credentials'],
    ['session_not_active', 'invalid_credentials', 'invalid_credentials'],
    ['session_expired', 'invalid_credentials', 'invalid_credentials'],
    ['recovery_code_not_active', 'invalid_credentials', 'invalid_credentials'],
    ['replay_detected', 'invalid_credentials', 'invalid_credentials'],
    ['idempotency_conflict', 'invalid_credentials', 'invalid_credentials'],
    ['federation_provider_disabled', 'invalid_credentials', 'invalid_credentials'],
    ['version_conflict', 'conflict', 'conflict'],
    ['unavailable', 'service_unavailable', 'service_unavailable'],
    ['internal', 'service_unavailable', 'service_unavailable'],
  ])('maps %s to %s for identity services and %s for organization services', (code, identity, organization) => {
    expect(mapStoreError(code, 'identity')).toBe(identity);
    expect(mapStoreError(code, 'organization')).toBe(organization);
  });

  it('covers all 16 store codes', () => {
    expect(STORE_ERROR_CODES).toHaveLength(16);
  });
});

describe('StoreError', () => {
  it('is retryable only for version_conflict and unavailable', () => {
    const retryable = STORE_ERROR_CODES.filter((code) => new StoreError(code).retryable);
    expect(retryable.sort()).toEqual(['unavailable', 'version_conflict']);
  });
});

describe('classifyDatabaseError', () => {
  const pg = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

  it.each([
    ['23505', 'unique_constraint'],
    ['23503', 'invalid_transition'],
    ['23514', 'invalid_transition'],
    ['22P02', 'invalid_transition'],
    ['40001', 'version_conflict'],
    ['40P01', 'version_conflict'],
    ['08006', 'unavailable'],
    ['08003', 'unavailable'],
    ['53300', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
    ['57014', 'unavailable'],
    ['55P03', 'unavailable'],
    ['42P01', 'internal'],
    ['XX000', 'internal'],
  ])('classifies SQLSTATE %s as %s', (state, expected) => {
    expect(classifyDatabaseError(pg(state))).toBe(expected);
  });

  it('reads MikroORM driver exceptions (sqlState) and wrapped causes', () => {
    const driver = Object.assign(new Error('unique'), {
      name: 'UniqueConstraintViolationException',
      sqlState: '23505',
    });
    expect(classifyDatabaseError(driver)).toBe('unique_constraint');
    expect(classifyDatabaseError(new Error('outer', { cause: pg('40P01') }))).toBe('version_conflict');
    expect(classifyDatabaseError(Object.assign(new Error('outer'), { previous: pg('23514') }))).toBe(
      'invalid_transition',
    );
  });

  it('treats connection and pool timeouts as unavailable', () => {
    const knex = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
      name: 'KnexTimeoutError',
    });
    expect(classifyDatabaseError(knex)).toBe('unavailable');
    expect(classifyDatabaseError(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    expect(classifyDatabaseError(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(classifyDatabaseError(pg('ECONNREFUSED'))).toBe('unavailable');
    expect(classifyDatabaseError(pg('ECONNRESET'))).toBe('unavailable');
  });

  it('keeps the code of a StoreError and falls back to internal for anything else', () => {
    expect(classifyDatabaseError(new StoreError('last_owner'))).toBe('last_owner');
    expect(classifyDatabaseError(new Error('environment marker mismatch'))).toBe('internal');
    expect(classifyDatabaseError('string')).toBe('internal');
    expect(classifyDatabaseError(null)).toBe('internal');
  });

  it('terminates on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(classifyDatabaseError(a)).toBe('internal');
  });
});
