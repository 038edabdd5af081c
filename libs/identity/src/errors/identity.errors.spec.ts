import { describe, expect, it } from '@jest/globals';
import {
  EMITTED_IDENTITY_ERROR_CODES,
  IDENTITY_ERROR_CATALOGUE,
  IDENTITY_ERROR_CODES,
  IdentityError,
  identityErrorBody,
  isIdentityErrorCode,
} from './identity.errors.js';
import { IDENTITY_STARTUP_ERROR_MESSAGE, IdentityConfigError, IdentityStartupError } from './identity-boot.errors.js';

describe('identity error catalogue', () => {
  it('holds the 20 codes of the contract with their fixed status, message and retryability', () => {
    expect(IDENTITY_ERROR_CODES).toHaveLength(20);
    expect(Object.isFrozen(IDENTITY_ERROR_CATALOGUE)).toBe(true);
    expect(IDENTITY_ERROR_CATALOGUE.not_found).toEqual({
      status: 404,
      message: 'The requested identity resource was not found',
      retryable: false,
      emitted: true,
    });
    expect(IDENTITY_ERROR_CATALOGUE.rate_limited).toMatchObject({ status: 429, retryable: true });
    expect(IDENTITY_ERROR_CATALOGUE.service_unavailable).toMatchObject({ status: 503, retryable: true });
    expect(IDENTITY_ERROR_CATALOGUE.internal_error).toMatchObject({
      status: 500,
      retryable: false,
      message: 'The identity operation failed',
    });
    const retryable = IDENTITY_ERROR_CODES.filter((code) => IDENTITY_ERROR_CATALOGUE[code].retryable);
    expect(retryable.sort()).toEqual(['conflict', 'rate_limited', 'service_unavailable']);
  });

  it('lists exactly the 15 emitted codes and keeps the five reserved ones out', () => {
    expect(EMITTED_IDENTITY_ERROR_CODES).toHaveLength(15);
    for (const reserved of [
      'organization_required',
      'wrong_organization',
      'insufficient_role',
      'insufficient_capability',
      'csrf_required',
    ]) {
      expect(EMITTED_IDENTITY_ERROR_CODES).not.toContain(reserved);
      expect(isIdentityErrorCode(reserved)).toBe(true);
    }
  });

  it('recognises codes and refuses inherited or unknown names', () => {
    expect(isIdentityErrorCode('csrf_invalid')).toBe(true);
    expect(isIdentityErrorCode('toString')).toBe(false);
    expect(isIdentityErrorCode('forbidden')).toBe(false);
    expect(isIdentityErrorCode(404)).toBe(false);
  });
});

describe('identityErrorBody', () => {
  it('builds the envelope with the request id between message and retryable', () => {
    const body = identityErrorBody('conflict', 'req_abc');
    expect(JSON.stringify(body)).toBe(
      '{"error":{"code":"conflict","message":"The resource changed; retry the request","requestId":"req_abc","retryable":true}}',
    );
  });

  it('omits the request id when none was established', () => {
    expect(identityErrorBody('not_found')).toEqual({
      error: { code: 'not_found', message: 'The requested identity resource was not found', retryable: false },
    });
    expect('requestId' in identityErrorBody('not_found').error).toBe(false);
  });

  it('never echoes a request id that is not a valid one (header injection, over 255 chars)', () => {
    expect('requestId' in identityErrorBody('request_invalid', 'a b\r\nx').error).toBe(false);
    expect('requestId' in identityErrorBody('request_invalid', 'x'.repeat(256)).error).toBe(false);
    expect(identityErrorBody('request_invalid', 'x'.repeat(255)).error.requestId).toHaveLength(255);
  });
});

describe('IdentityError', () => {
  it('carries the fixed message and status of its code', () => {
    const error = new IdentityError('step_up_required');
    expect(error.message).toBe('Recent passkey verification is required');
    expect(error.status).toBe(403);
    expect(error.retryable).toBe(false);
    expect(error).toBeInstanceOf(Error);
  });

  it('keeps the cause for logs but never serialises it', () => {
    const cause = new Error('duplicate key value violates unique constraint "users_email_key" secret=hunter2');
    const error = new IdentityError('service_unavailable', { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).toBe('{"name":"IdentityError","code":"service_unavailable"}');
    expect(JSON.stringify(error.toBody('req_1'))).not.toContain('hunter2');
  });

  it('accepts Retry-After only on rate_limited and only as an integer ≥ 1', () => {
    expect(new IdentityError('rate_limited', { retryAfterSeconds: 12 }).retryAfterSeconds).toBe(12);
    expect(() => new IdentityError('conflict', { retryAfterSeconds: 3 })).toThrow(TypeError);
    expect(() => new IdentityError('rate_limited', { retryAfterSeconds: 0 })).toThrow(TypeError);
    expect(() => new IdentityError('rate_limited', { retryAfterSeconds: 1.5 })).toThrow(TypeError);
  });
});

describe('boot errors', () => {
  it('IdentityConfigError names the rule and is not an IdentityError', () => {
    const error = new IdentityConfigError('origin_not_exact', 'allowedOrigins[0] is bad');
    expect(error.rule).toBe('origin_not_exact');
    expect(error.message).toBe('Invalid identity configuration: allowedOrigins[0] is bad');
    expect(error).not.toBeInstanceOf(IdentityError);
  });

  it('IdentityStartupError has a generic message and keeps the check id for logs', () => {
    const cause = new Error('variable TESSERA_PRODUCTION_AUDIT_KEY is not set');
    const error = new IdentityStartupError('secrets', { cause });
    expect(error.message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
    expect(error.message).not.toContain('AUDIT');
    expect(error.check).toBe('secrets');
    expect(error.cause).toBe(cause);
    expect(error).not.toBeInstanceOf(IdentityError);
  });
});
