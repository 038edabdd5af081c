import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { AppModule } from '../../../apps/demo/src/app.module.js';

const METRICS_KEY = 'demo-metrics-key-for-tests';
const BOOTSTRAP_SECRET = 'demo-bootstrap-secret-for-tests';

describe('demo app over HTTP on the real database', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [
        AppModule.forRoot({
          databaseUrl: database.url,
          env: { TESSERA_METRICS_API_KEY: METRICS_KEY, TESSERA_BOOTSTRAP_SECRET: BOOTSTRAP_SECRET },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('serves the /todos lifecycle: list, create with Location, retrieve, update, patch, delete', async () => {
    expect((await http.get('/todos')).body).toEqual([]);
    const created = await http.post('/todos').send({ title: 'buy milk' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), title: 'buy milk' });
    const id = created.body.id as number;
    expect(created.headers['location']).toBe(`/todos/${id}`);
    expect((await http.get(`/todos/${id}`)).body).toEqual({ id, title: 'buy milk' });
    const updated = await http.put(`/todos/${id}`).send({ title: 'buy oat milk' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id, title: 'buy oat milk' });
    expect((await http.patch(`/todos/${id}`).send({})).body).toEqual({ id, title: 'buy oat milk' });
    expect((await http.get('/todos')).body).toEqual([{ id, title: 'buy oat milk' }]);
    const deleted = await http.delete(`/todos/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await http.get(`/todos/${id}`)).status).toBe(404);
    expect((await http.delete(`/todos/${id}`)).status).toBe(404);
    expect((await http.put(`/todos/${id}`).send({ title: 'gone' })).status).toBe(404);
  });

  it('rejects invalid bodies with Nest validation errors and writes nothing', async () => {
    const cases: [object | string, number, unknown][] = [
      [{ title: 5 }, 400, ['title must be shorter than or equal to 200 characters', 'title must be a string']],
      [{ title: 'a', done: true }, 400, ['property done should not exist']],
      [{ title: '' }, 400, ['title should not be empty']],
      [{ title: 'x'.repeat(201) }, 400, ['title must be shorter than or equal to 200 characters']],
    ];
    for (const [body, status, message] of cases) {
      const res = await http.post('/todos').send(body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ statusCode: 400, message, error: 'Bad Request' });
    }
    const malformed = await http.post('/todos').set('content-type', 'application/json').send('{');
    expect(malformed.body).toEqual({ statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' });
    expect((await http.post('/todos').set('content-type', 'text/plain').send('title')).status).toBe(415);
    expect((await http.get('/todos')).body).toEqual([]);
  });

  it('answers 404 for ids that name no todo, including non-numeric and out-of-range ids', async () => {
    for (const id of ['abc', '0', '-1', '99999999999', '1.5'])
      expect((await http.get(`/todos/${id}`)).status).toBe(404);
  });

  it('answers 405 with Allow on the read-only /todo-feed ViewSet', async () => {
    const created = await http.post('/todos').send({ title: 'in the feed' });
    expect((await http.get('/todo-feed')).body).toEqual([created.body]);
    expect((await http.get(`/todo-feed/${created.body.id}`)).body).toEqual(created.body);
    for (const res of [
      await http.post('/todo-feed').send({ title: 'x' }),
      await http.delete(`/todo-feed/${created.body.id}`),
      await http.put(`/todo-feed/${created.body.id}`).send({ title: 'y' }),
    ]) {
      expect(res.status).toBe(405);
      expect(res.headers['allow']).toBe('GET, HEAD');
      expect(res.body).toEqual({ statusCode: 405, message: 'Method Not Allowed' });
    }
  });

  it('serves the radix route GET /hello/:name with a decoded parameter', async () => {
    expect((await http.get('/hello/caf%C3%A9')).body).toEqual({ hello: 'café' });
    expect((await http.get('/hello/%zz')).status).toBe(400);
    const wrongMethod = await http.post('/hello/ada');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers['allow']).toBe('GET, HEAD');
  });

  it('protects /metrics with an API key: none → 401, wrong → 401, right → 200', async () => {
    expect((await http.get('/metrics')).status).toBe(401);
    expect((await http.get('/metrics').set('x-api-key', 'wrong')).status).toBe(401);
    const ok = await http.get('/metrics').set('x-api-key', METRICS_KEY);
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/^process_uptime_seconds \d+\n$/);
    expect((await http.get('/metrics/whoami')).status).toBe(401);
    expect((await http.get('/metrics/whoami').set('x-api-key', METRICS_KEY)).body).toEqual({
      kind: 'api_key',
      id: 'metrics',
    });
  });

  it('reports health with a database round trip', async () => {
    expect((await http.get('/health')).body).toEqual({ status: 'ok', database: 'up' });
  });

  it('runs the identity platform: client-config, bootstrap with the environment secret, and a guarded host controller', async () => {
    const config = await http.get('/identity/v1/client-config');
    expect(config.status).toBe(200);
    expect(config.body.features.bootstrap).toBe(true);
    expect((await http.get('/account')).body.error.code).toBe('authentication_required');
    const boot = await http.post('/identity/v1/bootstrap').send({
      secret: BOOTSTRAP_SECRET,
      displayName: 'Demo Owner',
      primaryEmail: 'owner@example.com',
      organizationName: 'Demo',
      organizationSlug: 'demo',
    });
    expect(boot.status).toBe(201);
    expect(boot.text).not.toContain(BOOTSTRAP_SECRET);
    const cookie = (boot.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
    // The owner's bootstrap session is restricted until a passkey is registered.
    expect((await http.get('/account').set('cookie', cookie)).body.error.code).toBe('authentication_required');
    expect((await http.get('/identity/v1/client-config')).body.features.bootstrap).toBe(false);
  });
});
