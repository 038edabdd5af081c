import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { identityOpenApiDocument, resolveIdentityConfig, type IdentityConfig } from '@tessera/identity';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { checkIdentityResponse } from '../../support/openapi/openapi-response-check.js';

describe('GET /identity/v1/openapi.json', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootIdentityApp();
  });

  afterAll(async () => {
    await identity?.close();
  });

  it('serves the generated document, valid OpenAPI 3.1, with the identity response headers', async () => {
    const response = await request(identity.app.getHttpServer()).get('/identity/v1/openapi.json').expect(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.body).toEqual(
      identityOpenApiDocument({
        sessionCookieName: '__Host-tessera_session',
        requestIdHeader: 'X-Request-ID',
        serverUrl: 'http://localhost:3000',
      }),
    );
    expect(await new Validator().validate(response.body as Record<string, unknown>)).toEqual({ valid: true });
  });

  it('describes what an unknown identity path answers (the host’s miss on an identity-owned path)', async () => {
    const response = await request(identity.app.getHttpServer()).get('/identity/v1/no-such-route').expect(404);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await request(identity.app.getHttpServer()).head('/identity/v1/openapi.json').expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('is on by default in development and test, off in staging and production', () => {
    const base = {
      publicBaseUrl: 'https://id.example.com',
      rp: { id: 'id.example.com', name: 'Example' },
      secrets: {} as IdentityConfig['secrets'],
    };
    const openApi = (environment: IdentityConfig['environment'], extra: Partial<IdentityConfig> = {}) =>
      resolveIdentityConfig({ ...base, ...ring(environment), environment, ...extra }).openApi;
    expect(['development', 'test', 'staging', 'production'].map((e) => openApi(e as never))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(openApi('production', { openApi: true })).toBe(true);
  });
});

describe('GET /identity/v1/openapi.json with openApi: false', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootIdentityApp({ openApi: false });
  });

  afterAll(async () => {
    await identity?.close();
  });

  it('answers 404 not_found, as if the route did not exist', async () => {
    const response = await request(identity.app.getHttpServer()).get('/identity/v1/openapi.json').expect(404);
    expect(response.body.error.code).toBe('not_found');
  });
});

describe('response validation against docs/openapi.json', () => {
  let server: Server;
  let answer: { status: number; headers: Record<string, string>; body: string };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const identityHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-request-id': 'req_abc',
  };
  const me = { userId: '0190f5a0-0000-7000-8000-000000000001', displayName: 'Ada', assuranceLevel: 'passkey' };

  it('lets a described response through to the test’s own expectations', async () => {
    answer = { status: 200, headers: identityHeaders, body: JSON.stringify(me) };
    await request(server).get('/identity/v1/me').expect(200);
  });

  it('fails the request of a test that receives a response the document does not describe', async () => {
    const cases = [
      { status: 200, headers: identityHeaders, body: JSON.stringify({ ...me, secret: 'x' }) },
      { status: 200, headers: { ...identityHeaders, 'cache-control': 'max-age=60' }, body: JSON.stringify(me) },
      { status: 202, headers: identityHeaders, body: JSON.stringify(me) },
      { status: 200, headers: { ...identityHeaders, 'content-type': 'text/plain' }, body: JSON.stringify(me) },
    ];
    for (const bad of cases) {
      answer = bad;
      await expect(request(server).get('/identity/v1/me')).rejects.toThrow(/not described by docs\/openapi\.json/);
    }
  });

  it('checks codes per route: a code the route cannot answer is undocumented there', () => {
    const body = {
      error: { code: 'step_up_required', message: 'Recent passkey verification is required', retryable: false },
    };
    const outcome = checkIdentityResponse('GET', '/identity/v1/me', { status: 403, headers: identityHeaders, body });
    expect(outcome.problems.join('\n')).toMatch(/body/);
  });

  it('accepts only the documented 405 for another method on a known path, and the envelope elsewhere', () => {
    const allowed = { ...identityHeaders, allow: 'GET, HEAD' };
    const body = {
      error: { code: 'method_not_allowed', message: 'The method is not allowed for this resource', retryable: false },
    };
    expect(checkIdentityResponse('PUT', '/identity/v1/me', { status: 405, headers: allowed, body }).problems).toEqual(
      [],
    );
    expect(
      checkIdentityResponse('PUT', '/identity/v1/me', { status: 200, headers: allowed, body: me }).problems,
    ).not.toEqual([]);
    const unknown = checkIdentityResponse('GET', '/identity/v1/nowhere', {
      status: 200,
      headers: identityHeaders,
      body: me,
    });
    expect(unknown.problems).not.toEqual([]);
  });
});

function ring(environment: string): { secrets: IdentityConfig['secrets'] } {
  const pepper = (name: string) => ({
    current: { version: 1, ref: `env:TESSERA_${environment.toUpperCase()}_${name}` },
  });
  return {
    secrets: {
      sessionPepper: pepper('SESSION'),
      recoveryPepper: pepper('RECOVERY'),
      devicePepper: pepper('DEVICE'),
      servicePepper: pepper('SERVICE'),
      auditKey: `env:TESSERA_${environment.toUpperCase()}_AUDIT`,
      encryptionKey: `env:TESSERA_${environment.toUpperCase()}_ENCRYPTION`,
      signingKey: `env:TESSERA_${environment.toUpperCase()}_SIGNING`,
    } as unknown as IdentityConfig['secrets'],
  };
}
