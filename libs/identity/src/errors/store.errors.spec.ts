import { describe, expect, it } from '@jest/globals';
import { mapStoreError, STORE_ERROR_CODES, StoreError, type StoreErrorCode } from './store.errors.js';

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
