import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { identityKernelOf } from '../../support/identity-kernel.js';
import request from 'supertest';
import type { IdentityTestApp } from '../../support/identity-app.js';
import {
  bootDeviceApp,
  cancelDevice,
  CLIENT_ID,
  decide,
  oauthError,
  pollToken,
  postForm,
  refreshToken,
  rowsOf,
  seedApprover,
  startDevice,
} from './device.fixtures.js';

const INVALID_REQUEST = oauthError('invalid_request', 'The request is missing a required parameter or is malformed.');
const INVALID_SCOPE = oauthError('invalid_scope', 'The requested scope is invalid or not allowed.');
const UNSUPPORTED = oauthError('unsupported_grant_type', 'The grant type is not supported.');
const INVALID_GRANT = oauthError('invalid_grant', 'The grant or token is invalid, expired or revoked.');
const PENDING = oauthError('authorization_pending', 'The authorization request is still pending.');
const SLOW_DOWN = oauthError('slow_down', 'Polling too frequently; increase the interval.');
const DENIED = oauthError('access_denied', 'The authorization request was denied.');
const EXPIRED = oauthError('expired_token', 'The device code has expired.');
const RATE_LIMITED = oauthError('rate_limited', 'Too many requests; retry later.');
const UNAVAILABLE = oauthError('temporarily_unavailable', 'The service is temporarily unavailable.');
const SERVER_ERROR = oauthError('server_error', 'The request could not be completed.');
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

type Answer = { status: number; headers: Record<string, string>; body: unknown; text: string };

/** An RFC 6749 error answer: status, exact body, no-store + no-cache, request id only in the header. */
function expectOAuthError(res: Answer, status: number, body: Record<string, string>) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body });
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['pragma']).toBe('no-cache');
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(res.text).not.toContain(res.headers['x-request-id']);
}

/**
 * Every row of the identity-http §5 error table the OAuth endpoints answer over HTTP, and the §10
 * policies `oauth_token` and `device_code_holder` (429 + `Retry-After` in the RFC 6749 body).
 */
describe('OAuth endpoints: the §5 error table and §10 policies', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootDeviceApp({
      oauth_token: { limit: 30, windowSeconds: 60 },
      device_code_holder: { limit: 5, windowSeconds: 60 },
    });
  });

  afterAll(async () => {
    await identity?.close();
  });

  describe('POST /oauth/device_authorization', () => {
    it('answers the RFC 8628 body with no-store headers', async () => {
      const res = await postForm(identity, '/oauth/device_authorization', {
        client_id: CLIENT_ID,
        scope: 'identity.profile',
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'device_code',
        'expires_in',
        'interval',
        'user_code',
        'verification_uri',
      ]);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['pragma']).toBe('no-cache');
    });

    it.each([
      ['a missing client_id', 'scope=identity.profile'],
      ['an empty client_id', 'client_id=&scope=identity.profile'],
      ['a duplicate client_id', 'client_id=a&client_id=b&scope=identity.profile'],
      ['a duplicate client_name', 'client_id=a&client_name=x&client_name=y&scope=identity.profile'],
      ['a client_id over 200 characters', `client_id=${'a'.repeat(201)}&scope=identity.profile`],
      ['a raw space', 'client_id=a b&scope=identity.profile'],
      ['a bad percent escape', 'client_id=%zz&scope=identity.profile'],
      ['a NUL in client_name', 'client_id=a&client_name=a%00b&scope=identity.profile'],
      ['an escape character in client_name', 'client_id=a&client_name=a%1Bb&scope=identity.profile'],
      [
        'a right-to-left override in client_name',
        'client_id=a&client_name=evil%E2%80%AEgnp.exe&scope=identity.profile',
      ],
      ['a client_name over 200 characters', `client_id=a&client_name=${'n'.repeat(201)}&scope=identity.profile`],
    ])('answers invalid_request for %s', async (_case, body) => {
      expectOAuthError(await postForm(identity, '/oauth/device_authorization', body), 400, INVALID_REQUEST);
    });

    it.each([
      ['a malformed bearer', { authorization: 'Bearer not-a-token' }],
      ['an unknown bearer', { authorization: `Bearer ${'0'.repeat(20)}.${'A'.repeat(43)}` }],
      ['another authorization scheme', { authorization: 'Basic dGVzc2VyYTpjbGk=' }],
      [
        'a bearer together with a session cookie',
        { authorization: 'Bearer not-a-token', cookie: '__Host-tessera_session=x.y' },
      ],
    ])('answers invalid_request, never a server error, for %s', async (_case, headers) => {
      const res = await request(identity.app.getHttpServer())
        .post('/oauth/device_authorization')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .set(headers)
        .send(new URLSearchParams({ client_id: CLIENT_ID, scope: 'identity.profile' }).toString());
      expectOAuthError(res, 400, INVALID_REQUEST);
    });

    it('answers another method with the router’s 405 and Allow: POST, uncached, the request id only in its header', async () => {
      for (const path of ['/oauth/device_authorization', '/oauth/token', '/oauth/revoke']) {
        const res = await request(identity.app.getHttpServer()).get(path);
        expect({ status: res.status, allow: res.headers['allow'], body: res.body }).toEqual({
          status: 405,
          allow: 'POST',
          body: { statusCode: 405, message: 'Method Not Allowed' },
        });
        expect([res.headers['cache-control'], res.headers['pragma']]).toEqual(['no-store', 'no-cache']);
        expect(res.headers['x-request-id']).toMatch(/^req_/);
      }
    });

    it('answers invalid_request for a JSON body', async () => {
      const res = await request(identity.app.getHttpServer())
        .post('/oauth/device_authorization')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ client_id: CLIENT_ID, scope: 'identity.profile' }));
      expectOAuthError(res, 400, INVALID_REQUEST);
    });

    it.each([
      ['a missing scope', { client_id: CLIENT_ID }],
      ['an upper-case scope', { client_id: CLIENT_ID, scope: 'Identity.Profile' }],
      ['a scope outside the allowlist', { client_id: CLIENT_ID, scope: 'identity.profile organization.manage' }],
      ['a repeated capability', { client_id: CLIENT_ID, scope: 'identity.profile identity.profile' }],
    ])('answers invalid_scope for %s', async (_case, form) => {
      expectOAuthError(await postForm(identity, '/oauth/device_authorization', form), 400, INVALID_SCOPE);
    });
  });

  describe('POST /oauth/token', () => {
    it.each([
      ['a missing grant_type', { device_code: 'x', client_id: CLIENT_ID }],
      ['a missing client_id', { grant_type: DEVICE_CODE_GRANT, device_code: 'x' }],
      ['a missing device_code', { grant_type: DEVICE_CODE_GRANT, client_id: CLIENT_ID }],
      ['a missing refresh_token', { grant_type: 'refresh_token', client_id: CLIENT_ID }],
    ])('answers invalid_request for %s', async (_case, form) => {
      expectOAuthError(await postForm(identity, '/oauth/token', form), 400, INVALID_REQUEST);
    });

    it('answers unsupported_grant_type for another grant type', async () => {
      const res = await postForm(identity, '/oauth/token', {
        grant_type: 'authorization_code',
        code: 'x',
        client_id: CLIENT_ID,
      });
      expectOAuthError(res, 400, UNSUPPORTED);
    });

    it('answers authorization_pending to the first poll and slow_down to an early one, storing the interval', async () => {
      const started = await startDevice(identity);
      expectOAuthError(await pollToken(identity, started.device_code), 400, PENDING);
      expectOAuthError(await pollToken(identity, started.device_code), 400, SLOW_DOWN);
      identity.clock.advance({ seconds: 6 });
      // 6 s later is still early: the stored interval is now 10 s (and rises to 15).
      expectOAuthError(await pollToken(identity, started.device_code), 400, SLOW_DOWN);
      identity.clock.advance({ seconds: 16 });
      expectOAuthError(await pollToken(identity, started.device_code), 400, PENDING);
      const [grant] = await rowsOf(
        identity,
        'select interval_seconds, poll_count from tessera_identity.device_grants where client_id = ? order by poll_count desc limit 1',
        [CLIENT_ID],
      );
      expect(grant).toEqual({ interval_seconds: 15, poll_count: 4 });
    });

    it('answers invalid_grant for an unknown device code and for a malformed one', async () => {
      expectOAuthError(await pollToken(identity, 'A'.repeat(43)), 400, INVALID_GRANT);
      expectOAuthError(await pollToken(identity, 'not-a-device-code'), 400, INVALID_GRANT);
    });

    it('answers invalid_grant to another client without counting the poll', async () => {
      const started = await startDevice(identity, { client_id: 'client-mismatch' });
      expectOAuthError(await pollToken(identity, started.device_code, 'another-client'), 400, INVALID_GRANT);
      const rows = await rowsOf(identity, 'select poll_count from tessera_identity.device_grants where client_id = ?', [
        'client-mismatch',
      ]);
      expect(rows).toEqual([{ poll_count: 0 }]);
    });

    it('answers invalid_grant for a consumed grant', async () => {
      const approver = await seedApprover(identity);
      const started = await startDevice(identity);
      await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
      expect((await pollToken(identity, started.device_code)).status).toBe(200);
      expectOAuthError(await pollToken(identity, started.device_code), 400, INVALID_GRANT);
    });

    it('answers invalid_grant for a cancelled grant', async () => {
      const started = await startDevice(identity);
      await cancelDevice(identity, started.device_code);
      expectOAuthError(await pollToken(identity, started.device_code), 400, INVALID_GRANT);
    });

    it('answers access_denied for a denied grant', async () => {
      const approver = await seedApprover(identity);
      const started = await startDevice(identity);
      await decide(identity, started.user_code, approver, 'deny');
      expectOAuthError(await pollToken(identity, started.device_code), 400, DENIED);
    });

    it('answers expired_token at and after the grant’s expiry', async () => {
      const started = await startDevice(identity);
      identity.clock.advance({ seconds: 600 });
      expectOAuthError(await pollToken(identity, started.device_code), 400, EXPIRED);
      expectOAuthError(await pollToken(identity, started.device_code), 400, EXPIRED);
    });

    it('answers invalid_grant for a bad refresh token, another client’s refresh and a replayed one', async () => {
      const approver = await seedApprover(identity);
      const started = await startDevice(identity);
      await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
      const issued = (await pollToken(identity, started.device_code)).body as { refresh_token: string };
      expectOAuthError(await refreshToken(identity, 'garbage'), 400, INVALID_GRANT);
      const [selector] = issued.refresh_token.split('.');
      expectOAuthError(await refreshToken(identity, `${selector}.${'A'.repeat(43)}`), 400, INVALID_GRANT);
      expectOAuthError(await refreshToken(identity, issued.refresh_token, 'another-client'), 400, INVALID_GRANT);
      const rotated = await refreshToken(identity, issued.refresh_token);
      expect(rotated.status).toBe(200);
      identity.clock.advance({ seconds: 31 });
      expectOAuthError(await refreshToken(identity, issued.refresh_token), 400, INVALID_GRANT);
      expectOAuthError(await refreshToken(identity, rotated.body.refresh_token as string), 400, INVALID_GRANT);
    });

    it('answers invalid_grant on membership drift and revokes the family', async () => {
      const approver = await seedApprover(identity);
      const started = await startDevice(identity);
      await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
      const issued = (await pollToken(identity, started.device_code)).body as { refresh_token: string };
      await rowsOf(
        identity,
        "update tessera_identity.memberships set role = 'viewer', version = version + 1 where id = ?",
        [approver.membershipId],
      );
      expectOAuthError(await refreshToken(identity, issued.refresh_token), 400, INVALID_GRANT);
      const [family] = await rowsOf(
        identity,
        'select state, revoked_reason from tessera_identity.device_token_families where membership_id = ?',
        [approver.membershipId],
      );
      expect(family).toEqual({ state: 'revoked', revoked_reason: 'membership_authorization_changed' });
    });

    it('limits oauth_token per peer and client_id: 429 rate_limited with Retry-After', async () => {
      const form = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'limited-client' };
      for (let i = 0; i < 30; i++) expect((await postForm(identity, '/oauth/token', form)).status).toBe(400);
      const limited = await postForm(identity, '/oauth/token', form);
      expectOAuthError(limited, 429, RATE_LIMITED);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Another client_id from the same peer has its own bucket.
      const other = await postForm(identity, '/oauth/token', { ...form, client_id: 'other-client' });
      expectOAuthError(other, 400, INVALID_GRANT);
    });
  });

  describe('faults (injected into the store and the limiter)', () => {
    it('answers temporarily_unavailable for a store outage and a limiter outage', async () => {
      const kernel = identityKernelOf(identity.app);
      const create = jest
        .spyOn(kernel.store, 'createDeviceGrant')
        .mockResolvedValueOnce({ ok: false, code: 'unavailable' });
      const outage = await postForm(identity, '/oauth/device_authorization', {
        client_id: CLIENT_ID,
        scope: 'identity.profile',
      });
      create.mockRestore();
      expectOAuthError(outage, 503, UNAVAILABLE);
      const consume = jest.spyOn(kernel.rateLimiter, 'consume').mockRejectedValueOnce(new Error('limiter down'));
      const limiterDown = await refreshToken(identity, 'x', 'fault-client');
      consume.mockRestore();
      expectOAuthError(limiterDown, 503, UNAVAILABLE);
    });

    it('answers server_error for an unexpected exception, without its text', async () => {
      const kernel = identityKernelOf(identity.app);
      const create = jest
        .spyOn(kernel.store, 'createDeviceGrant')
        .mockRejectedValueOnce(new Error('unexpected secret-bearing failure'));
      const failed = await postForm(identity, '/oauth/device_authorization', {
        client_id: CLIENT_ID,
        scope: 'identity.profile',
      });
      create.mockRestore();
      expectOAuthError(failed, 500, SERVER_ERROR);
      expect(failed.text).not.toContain('secret-bearing');
    });
  });

  describe('POST /oauth/revoke', () => {
    beforeAll(() => {
      identity.clock.advance({ seconds: 61 });
    });

    it('revokes the family of a refresh token, and answers unknown and foreign tokens alike', async () => {
      const approver = await seedApprover(identity);
      const started = await startDevice(identity);
      await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
      const issued = (await pollToken(identity, started.device_code)).body as { refresh_token: string };
      const unknown = await postForm(identity, '/oauth/revoke', { token: 'unknown', client_id: CLIENT_ID });
      expect({ status: unknown.status, text: unknown.text }).toEqual({ status: 200, text: '' });
      expect(unknown.headers['cache-control']).toBe('no-store');
      expect(unknown.headers['pragma']).toBe('no-cache');
      const foreign = await postForm(identity, '/oauth/revoke', { token: issued.refresh_token, client_id: 'other' });
      expect({ status: foreign.status, text: foreign.text }).toEqual({ status: 200, text: '' });
      const familyOf = () =>
        rowsOf(identity, 'select state from tessera_identity.device_token_families where membership_id = ?', [
          approver.membershipId,
        ]);
      expect(await familyOf()).toEqual([{ state: 'active' }]);
      const revoked = await postForm(identity, '/oauth/revoke', {
        token: issued.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: CLIENT_ID,
      });
      expect({ status: revoked.status, text: revoked.text }).toEqual({ status: 200, text: '' });
      expect(await familyOf()).toEqual([{ state: 'revoked' }]);
      expectOAuthError(await refreshToken(identity, issued.refresh_token), 400, INVALID_GRANT);
    });

    it('answers invalid_request for a malformed form', async () => {
      expectOAuthError(await postForm(identity, '/oauth/revoke', 'token=a&token=b&client_id=x'), 400, INVALID_REQUEST);
    });

    it('limits device_code_holder per peer: 429 rate_limited with Retry-After', async () => {
      identity.clock.advance({ seconds: 61 });
      for (let i = 0; i < 5; i++) {
        expect((await postForm(identity, '/oauth/revoke', { token: 'x', client_id: CLIENT_ID })).status).toBe(200);
      }
      const limited = await postForm(identity, '/oauth/revoke', { token: 'x', client_id: CLIENT_ID });
      expectOAuthError(limited, 429, RATE_LIMITED);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    });
  });
});
