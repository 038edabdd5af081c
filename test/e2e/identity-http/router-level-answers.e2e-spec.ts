import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { bootIdentityApp, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { getAs, seedMember, seedOrganization, type SeededMember } from '../../support/tenant-seed.js';

type Res = request.Response;

function expectIdentityEnvelope(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}

/** Regressions of issue 11 items 16 and 17 on identity-owned paths. */
describe('router-level answers and query decoding on identity-owned paths', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;
  const http = () => request(identity.app.getHttpServer());
  const dashed = (id: string) => id.replace(/-/g, '%2D');

  beforeAll(async () => {
    identity = await bootIdentityApp();
    organizationId = await seedOrganization(identity);
    admin = await seedMember(identity, organizationId, 'admin');
  });
  afterAll(async () => identity?.close());

  it('answers an undecodable audit-events cursor with 400 request_invalid, not 403 csrf_invalid (the seed table wins)', async () => {
    const res = await getAs(
      identity,
      `/identity/v1/organizations/${organizationId}/audit-events?cursor=%%%`,
      admin.session,
    );
    expectIdentityEnvelope(res, 400, 'request_invalid');
  });

  it('still refuses an undecodable query on an unsafe identity request with csrf_invalid', async () => {
    const res = await http().post('/identity/v1/passkeys/authentication/start?x=%%%').set('origin', TEST_ORIGIN);
    expectIdentityEnvelope(res, 403, 'csrf_invalid');
  });

  it('answers a 405 in the identity envelope with Allow, X-Request-ID and no-store (was Nest router format)', async () => {
    const res = await http().put('/identity/v1/me');
    expectIdentityEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers['allow']).toBe('GET, HEAD');
  });

  it('answers a malformed percent-escape in an identity path with 400 request_invalid (was Nest router format)', async () => {
    const res = await http().delete('/identity/v1/sessions/%ZZ').set('origin', TEST_ORIGIN);
    expectIdentityEnvelope(res, 400, 'request_invalid');
  });

  it('answers a percent-encoded UUID (%2D) in a path with 400 request_invalid, not 404', async () => {
    const audit = await getAs(
      identity,
      `/identity/v1/organizations/${dashed(organizationId)}/audit-events`,
      admin.session,
    );
    expectIdentityEnvelope(audit, 400, 'request_invalid');
    // The canonical spelling of the same id is served.
    expect(
      (await getAs(identity, `/identity/v1/organizations/${organizationId}/audit-events`, admin.session)).status,
    ).toBe(200);
  });
});

/** Regressions of issue 11 items 16 and 17 on host routes (the demo's ViewSet `/todos`). */
describe('host routes keep their own answers, each with X-Request-ID', () => {
  let database: TestDatabase;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [
        AppModule.forRoot({
          databaseUrl: database.url,
          env: {
            TESSERA_METRICS_API_KEY: 'demo-metrics-key-for-tests',
            TESSERA_BOOTSTRAP_SECRET: 'demo-bootstrap-secret-for-tests',
          },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('lets a stray % in a GET query reach the host route (was 403 csrf_invalid in the identity envelope)', async () => {
    const res = await http().get('/todos?q=100%');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers GET /todos/%ZZ with the router 400 in Nest format, now carrying X-Request-ID', async () => {
    const res = await http().get('/todos/%ZZ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'Malformed percent-encoding in path', error: 'Bad Request' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('keeps the Nest format for a host 405, with X-Request-ID', async () => {
    const res = await http().post('/todos/1');
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ statusCode: 405, message: 'Method Not Allowed' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});
