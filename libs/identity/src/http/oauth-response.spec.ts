import { describe, expect, it } from '@jest/globals';
import { createTestExchange } from '@tessera/web';
import { IdentityError } from '../errors/identity.errors.js';
import { OAUTH_ERROR_CODES, OAuthError } from '../errors/oauth.errors.js';
import { StoreError } from '../errors/store.errors.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import { identityRequestId } from './pipeline-stages.js';
import {
  oauthErrorMapper,
  respondOAuthEmpty,
  respondOAuthError,
  respondOAuthJson,
  toOAuthError,
} from './oauth-response.js';

const random = createNodeCryptoRandom();

/** An exchange that went through stage 1 (request id), as every OAuth request does. */
async function oauthExchange(url = '/oauth/token') {
  const created = createTestExchange({ method: 'POST', url, headers: { 'x-request-id': 'req-from-client' } });
  await identityRequestId(random)(created.exchange, async () => {});
  return created;
}

describe('respondOAuthError (identity-http §5)', () => {
  it.each(OAUTH_ERROR_CODES.filter((code) => code !== 'rate_limited'))(
    'answers %s with exactly error + error_description, no-store, no-cache, and the request id only in X-Request-ID',
    async (code) => {
      const { exchange, response } = await oauthExchange();
      respondOAuthError(exchange, code);
      const error = new OAuthError(code);
      expect(response.status).toBe(error.status);
      expect(response.json).toEqual({ error: code, error_description: error.message });
      expect(Object.keys(response.json as object)).toEqual(['error', 'error_description']);
      expect(response.text).not.toContain('req-from-client');
      expect(response.headers).toEqual({
        'x-request-id': 'req-from-client',
        'cache-control': 'no-store',
        pragma: 'no-cache',
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(response.text),
      });
    },
  );

  it('adds Retry-After to rate_limited (429)', async () => {
    const { exchange, response } = await oauthExchange();
    respondOAuthError(exchange, new OAuthError('rate_limited', { retryAfterSeconds: 17 }));
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('17');
    expect(response.json).toEqual({ error: 'rate_limited', error_description: 'Too many requests; retry later.' });
  });
});

describe('OAuth success responses', () => {
  it('answer JSON with no-store and no-cache', async () => {
    const { exchange, response } = await oauthExchange();
    respondOAuthJson(exchange, { access_token: 'a', token_type: 'Bearer' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ access_token: 'a', token_type: 'Bearer' });
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', pragma: 'no-cache' });
  });

  it('answer revocation with 200 and an empty body', async () => {
    const { exchange, response } = await oauthExchange('/oauth/revoke');
    respondOAuthEmpty(exchange);
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', pragma: 'no-cache', 'content-length': '0' });
  });
});

describe('toOAuthError', () => {
  it('keeps an OAuthError as it is', () => {
    const error = new OAuthError('slow_down');
    expect(toOAuthError(error)).toBe(error);
  });

  it.each<[string, unknown, string]>([
    ['the limiter refusal', new IdentityError('rate_limited', { retryAfterSeconds: 9 }), 'rate_limited'],
    ['a limiter or store outage', new IdentityError('service_unavailable'), 'temporarily_unavailable'],
    ['a shared-stage decode failure', new IdentityError('request_invalid'), 'invalid_request'],
    ['a credential the endpoint does not take', new IdentityError('invalid_credentials'), 'invalid_request'],
    ['a missing authentication', new IdentityError('authentication_required'), 'invalid_request'],
    ['a revoked session', new IdentityError('session_revoked'), 'invalid_request'],
    ['an expired session', new IdentityError('session_expired'), 'invalid_request'],
    ['a CSRF failure', new IdentityError('csrf_invalid'), 'invalid_request'],
    ['another identity error', new IdentityError('internal_error'), 'server_error'],
    ['an unavailable store', new StoreError('unavailable'), 'temporarily_unavailable'],
    ['an internal store failure', new StoreError('internal'), 'temporarily_unavailable'],
    ['another store failure', new StoreError('version_conflict'), 'server_error'],
    ['an unexpected exception', new TypeError('boom'), 'server_error'],
    ['a thrown string', 'boom', 'server_error'],
  ])('maps %s to %s, keeping it as the cause', (_name, error, code) => {
    const mapped = toOAuthError(error);
    expect(mapped.code).toBe(code);
    expect(mapped.cause).toBe(error);
  });

  it('keeps the limiter Retry-After', () => {
    expect(toOAuthError(new IdentityError('rate_limited', { retryAfterSeconds: 9 })).retryAfterSeconds).toBe(9);
  });
});

describe('oauthErrorMapper', () => {
  it('claims every error on /oauth/* and answers it with the RFC 6749 body, never the exception text', async () => {
    const { exchange, response } = await oauthExchange();
    expect(oauthErrorMapper(new Error('select * from tokens where secret = x'), exchange)).toBe(true);
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'server_error', error_description: 'The request could not be completed.' });
    expect(response.text).not.toContain('secret');
  });

  it('leaves errors on other paths to the next mapper', async () => {
    const { exchange, response } = await oauthExchange('/identity/v1/me');
    expect(oauthErrorMapper(new OAuthError('invalid_grant'), exchange)).toBe(false);
    expect(response.ended).toBe(false);
  });
});
