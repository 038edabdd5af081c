import { describe, expect, it } from '@jest/globals';
import {
  isOAuthErrorCode,
  OAUTH_ERROR_CATALOGUE,
  OAUTH_ERROR_CODES,
  OAuthError,
  oauthErrorBody,
  type OAuthErrorCode,
} from './oauth.errors.js';

describe('OAuth error catalogue (identity-http §5 error table)', () => {
  it.each<[OAuthErrorCode, number, string]>([
    ['invalid_request', 400, 'The request is missing a required parameter or is malformed.'],
    ['invalid_scope', 400, 'The requested scope is invalid or not allowed.'],
    ['unsupported_grant_type', 400, 'The grant type is not supported.'],
    ['invalid_grant', 400, 'The grant or token is invalid, expired or revoked.'],
    ['authorization_pending', 400, 'The authorization request is still pending.'],
    ['slow_down', 400, 'Polling too frequently; increase the interval.'],
    ['access_denied', 400, 'The authorization request was denied.'],
    ['expired_token', 400, 'The device code has expired.'],
    ['rate_limited', 429, 'Too many requests; retry later.'],
    ['temporarily_unavailable', 503, 'The service is temporarily unavailable.'],
    ['server_error', 500, 'The request could not be completed.'],
  ])('%s is HTTP %i with the fixed description', (code, status, description) => {
    expect(OAUTH_ERROR_CATALOGUE[code]).toEqual({ status, description });
    expect(oauthErrorBody(code)).toEqual({ error: code, error_description: description });
    expect(Object.keys(oauthErrorBody(code))).toEqual(['error', 'error_description']);
  });

  it('has exactly the 11 codes of the table, frozen', () => {
    expect(OAUTH_ERROR_CODES).toHaveLength(11);
    expect(Object.isFrozen(OAUTH_ERROR_CATALOGUE)).toBe(true);
    expect(Object.isFrozen(OAUTH_ERROR_CATALOGUE.invalid_grant)).toBe(true);
    expect(isOAuthErrorCode('slow_down')).toBe(true);
    expect(isOAuthErrorCode('toString')).toBe(false);
    expect(isOAuthErrorCode('invalid_client')).toBe(false);
  });
});

describe('OAuthError', () => {
  it('carries the fixed status and description, and never serialises its cause', () => {
    const error = new OAuthError('temporarily_unavailable', { cause: new Error('password=hunter2') });
    expect(error.status).toBe(503);
    expect(error.message).toBe('The service is temporarily unavailable.');
    expect(error.toBody()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The service is temporarily unavailable.',
    });
    expect(JSON.stringify(error)).toBe('{"name":"OAuthError","code":"temporarily_unavailable"}');
  });

  it('accepts Retry-After seconds for rate_limited only, as an integer ≥ 1', () => {
    expect(new OAuthError('rate_limited', { retryAfterSeconds: 7 }).retryAfterSeconds).toBe(7);
    expect(() => new OAuthError('invalid_grant', { retryAfterSeconds: 7 })).toThrow(TypeError);
    expect(() => new OAuthError('rate_limited', { retryAfterSeconds: 0 })).toThrow(TypeError);
    expect(() => new OAuthError('rate_limited', { retryAfterSeconds: 1.5 })).toThrow(TypeError);
  });
});
