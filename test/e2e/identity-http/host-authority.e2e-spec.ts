import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { rawRequest, type RawResponse } from './raw-http.js';

const CONFIG = '/identity/v1/client-config';

function expectRequestInvalid(res: RawResponse): void {
  expect(res.status).toBe(400);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(JSON.parse(res.body)).toEqual({
    error: {
      code: 'request_invalid',
      message: 'The request is invalid',
      requestId: res.headers['x-request-id'],
      retryable: false,
    },
  });
}

/**
 * Regression (issue 11 item 7): a request naming two authorities (two `Host` headers, or a `Host`
 * that disagrees with an absolute-form target) reached identity routes, where components may read
 * different ones. Sent over raw TCP: HTTP clients refuse to build these requests.
 */
describe('identity-owned paths refuse a request that names two authorities (raw node:http)', () => {
  let identity: IdentityTestApp;
  let port: number;

  beforeAll(async () => {
    identity = await bootIdentityApp();
    await identity.app.listen(0, '127.0.0.1');
    port = (identity.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await identity?.close();
  });

  it('serves one Host header and a matching absolute-form target (the control)', async () => {
    expect((await rawRequest(port, [`GET ${CONFIG} HTTP/1.1`, 'Host: localhost:3000'])).status).toBe(200);
    const absolute = await rawRequest(port, [`GET http://LOCALHOST:3000${CONFIG} HTTP/1.1`, 'Host: localhost:3000']);
    expect(absolute.status).toBe(200);
  });

  it('answers two Host headers with 400 request_invalid in the identity envelope', async () => {
    expectRequestInvalid(
      await rawRequest(port, [`GET ${CONFIG} HTTP/1.1`, 'Host: localhost:3000', 'Host: evil.example']),
    );
  });

  it('answers a Host that disagrees with the absolute-form target with 400 request_invalid', async () => {
    expectRequestInvalid(await rawRequest(port, [`GET http://evil.example${CONFIG} HTTP/1.1`, 'Host: localhost:3000']));
  });

  it('leaves host paths to the host: two Host headers on an unknown host path are not an identity answer', async () => {
    const res = await rawRequest(port, ['GET /nowhere HTTP/1.1', 'Host: localhost:3000', 'Host: evil.example']);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('request_invalid');
  });
});
