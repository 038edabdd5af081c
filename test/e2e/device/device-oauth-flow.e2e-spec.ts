import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { checkIdentityResponse } from '../../support/openapi/openapi-response-check.js';
import type { IdentityTestApp } from '../../support/identity-app.js';
import {
  bootDeviceApp,
  CLIENT_ID,
  decide,
  DEVICE_CAPABILITIES,
  oauthError,
  pollToken,
  refreshToken,
  rowsOf,
  seedApprover,
  startDevice,
} from './device.fixtures.js';

/**
 * The RFC 8628 device flow over HTTP, driven by `openid-client` 6 as the real client: device
 * authorization, polling through `authorization_pending` and `slow_down` (the client honours the
 * interval and its increase), the user's decision on the confirmation routes 35–37 over HTTP (a
 * passkey session inspects, then approves or denies), the token response, refresh, and RFC 7009
 * revocation. Every
 * response the client receives is checked against docs/openapi.json like supertest's are.
 */
describe('device flow over HTTP with openid-client', () => {
  let identity: IdentityTestApp;
  let config: client.Configuration;
  const problems: string[] = [];
  const tokenErrors: string[] = [];
  let onTokenError: ((error: string) => Promise<void>) | undefined;

  beforeAll(async () => {
    identity = await bootDeviceApp({ oauth_token: { limit: 100, windowSeconds: 60 } });
    await identity.app.listen(0, '127.0.0.1');
    const { port } = identity.app.getHttpServer().address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    config = new client.Configuration(
      {
        issuer: base,
        device_authorization_endpoint: `${base}/oauth/device_authorization`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
      },
      CLIENT_ID,
      undefined,
      client.None(),
    );
    client.allowInsecureRequests(config);
    config[client.customFetch] = async (url, options) => {
      const response = await fetch(url, options as RequestInit);
      const text = await response.clone().text();
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      const outcome = checkIdentityResponse(options.method ?? 'GET', new URL(url).pathname, {
        status: response.status,
        headers,
        body,
        text,
      });
      problems.push(...outcome.problems);
      const error = (body as { error?: string }).error;
      if (new URL(url).pathname === '/oauth/token' && error !== undefined) {
        tokenErrors.push(error);
        await onTokenError?.(error);
      }
      return response;
    };
  });

  afterAll(async () => {
    await identity?.close();
  });

  it('initiates, polls through authorization_pending and slow_down, refreshes and revokes', async () => {
    const approver = await seedApprover(identity);
    const started = await client.initiateDeviceAuthorization(config, {
      scope: 'identity.profile package.publish',
      client_name: 'Tessera CLI',
    });
    expect(started.verification_uri).toBe('http://localhost:3000/device');
    expect(started.user_code).toMatch(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
    expect(started.interval).toBe(5);
    expect(started.expires_in).toBe(600);

    // The server's clock is frozen: the first poll is answered normally, the second (at the same
    // instant) is early → slow_down; the user then approves and the clock moves past the raised
    // interval (10 s), so the client's next poll (after 5 + 5 s) gets the tokens.
    onTokenError = async (error) => {
      if (error !== 'slow_down') return;
      await decide(identity, started.user_code, approver, { approve: ['package.publish'] });
      identity.clock.advance({ seconds: 11 });
    };
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    onTokenError = undefined;
    expect(tokenErrors).toEqual(['authorization_pending', 'slow_down']);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('package.publish');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.access_token).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    const grant = await rowsOf(identity, 'select state, interval_seconds from tessera_identity.device_grants', []);
    expect(grant).toEqual([{ state: 'consumed', interval_seconds: 10 }]);

    identity.clock.advance({ seconds: 60 });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.scope).toBe('package.publish');
    expect(refreshed.expires_in).toBe(900);

    await client.tokenRevocation(config, refreshed.refresh_token!);
    const families = await rowsOf(
      identity,
      'select state, revoked_reason from tessera_identity.device_token_families',
      [],
    );
    expect(families).toEqual([{ state: 'revoked', revoked_reason: 'client_revocation' }]);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it('answers access_denied to the client when the user denies', async () => {
    const approver = await seedApprover(identity);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'identity.profile' });
    tokenErrors.length = 0;
    onTokenError = async (error) => {
      if (error === 'authorization_pending') await decide(identity, started.user_code, approver, 'deny');
      identity.clock.advance({ seconds: 11 });
    };
    await expect(client.pollDeviceAuthorizationGrant(config, started)).rejects.toMatchObject({
      error: 'access_denied',
    });
    onTokenError = undefined;
    expect(problems).toEqual([]);
  }, 60_000);

  it('20 concurrent refreshes of one token: identical pairs, one rotation, the family stays active', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity);
    await decide(identity, started.user_code, approver, { approve: [...DEVICE_CAPABILITIES] });
    const issued = await pollToken(identity, started.device_code);
    expect(issued.status).toBe(200);
    expect(issued.body.scope).toBe(DEVICE_CAPABILITIES.join(' '));
    const familyId = (
      await rowsOf(identity, 'select family_id from tessera_identity.device_refresh_tokens where id = ?', [
        (issued.body.refresh_token as string).split('.')[0],
      ])
    )[0]!['family_id'];
    identity.clock.advance({ seconds: 1 });

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => refreshToken(identity, issued.body.refresh_token as string)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    const rows = await rowsOf(
      identity,
      'select state, rotation_counter from tessera_identity.device_refresh_tokens where family_id = ? order by rotation_counter',
      [familyId],
    );
    expect(rows).toEqual([
      { state: 'rotated', rotation_counter: 0 },
      { state: 'active', rotation_counter: 1 },
    ]);
    const [family] = await rowsOf(identity, 'select state from tessera_identity.device_token_families where id = ?', [
      familyId,
    ]);
    expect(family).toEqual({ state: 'active' });

    // A retry within the window recomputes expires_in; once the successor is used, the parent is a replay.
    identity.clock.advance({ seconds: 10 });
    const retried = await refreshToken(identity, issued.body.refresh_token as string);
    expect(retried.body).toEqual({ ...answers[0]!.body, expires_in: answers[0]!.body.expires_in - 10 });
    const next = await refreshToken(identity, retried.body.refresh_token as string);
    expect(next.status).toBe(200);
    const replay = await refreshToken(identity, issued.body.refresh_token as string);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual(oauthError('invalid_grant', 'The grant or token is invalid, expired or revoked.'));
    const [revoked] = await rowsOf(
      identity,
      'select state, revoked_reason from tessera_identity.device_token_families where id = ?',
      [familyId],
    );
    expect(revoked).toEqual({ state: 'revoked', revoked_reason: 'refresh_token_replay' });
    const stillActive = await rowsOf(
      identity,
      "select count(*)::int as n from tessera_identity.device_refresh_tokens where family_id = ? and state = 'active'",
      [familyId],
    );
    expect(stillActive).toEqual([{ n: 0 }]);
  });

  it('a retry after the window is a replay that revokes the family', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity);
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    const issued = await pollToken(identity, started.device_code);
    const first = await refreshToken(identity, issued.body.refresh_token as string);
    expect(first.status).toBe(200);
    identity.clock.advance({ seconds: 31 });
    const late = await refreshToken(identity, issued.body.refresh_token as string);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    const successor = await refreshToken(identity, first.body.refresh_token as string);
    expect(successor.body.error).toBe('invalid_grant');
  });

  it('50 concurrent exchanges of one authorized device code issue exactly one family', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity);
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    const count = async () =>
      (await rowsOf(identity, 'select count(*)::int as n from tessera_identity.device_token_families', []))[0]!['n'];
    const before = await count();
    const answers = await Promise.all(Array.from({ length: 50 }, () => pollToken(identity, started.device_code)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) expect(answer.body.error).toBe('invalid_grant');
    expect(await count()).toBe((before as number) + 1);
  });
});
