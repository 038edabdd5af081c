import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { bootLabelApp, MOUNTS } from './label-viewset.fixture.js';

/** `{"a":{"a":...1}}` with `levels` objects, as JSON text. */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe.each(Object.entries(MOUNTS))('ViewSet input through %s on the real database', (_mount, prefix) => {
  let database: TestDatabase;
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await bootLabelApp(database.url, database.embedded);
    http = request(app.getHttpServer());
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const post = (body: string) => http.post(prefix).set('content-type', 'application/json').send(body);
  const names = async () => ((await http.get(prefix)).body as { name: string }[]).map((label) => label.name);

  it.each([
    [
      'constructor',
      '{"name":"ctor","constructor":{"prototype":{"polluted":true}}}',
      'property constructor should not exist',
    ],
    ['__proto__', '{"name":"proto","__proto__":{"polluted":true}}', 'property __proto__ should not exist'],
    [
      'nested __proto__',
      '{"name":"nested","style":{"color":"red","__proto__":{}}}',
      'style.property __proto__ should not exist',
    ],
  ])('answers 400 to a %s key that was silently dropped (201) and writes nothing', async (_name, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: [message], error: 'Bad Request' });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(await names()).toEqual([]);
  });

  it('answers 400 to a constructor key on PUT too, leaving the row as it was', async () => {
    const created = await post('{"name":"kept"}');
    expect(created.status).toBe(201);
    const res = await http
      .put(`${prefix}/${created.body.id}`)
      .set('content-type', 'application/json')
      .send('{"name":"changed","constructor":{}}');
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['property constructor should not exist']);
    expect((await http.get(`${prefix}/${created.body.id}`)).body).toEqual({ id: created.body.id, name: 'kept' });
  });

  it('answers 400 instead of 500 (stack overflow in class-transformer) to a body nested 20,000 levels deep', async () => {
    const tooDeep = { statusCode: 400, message: 'JSON body nested too deeply', error: 'Bad Request' };
    for (const body of [`{"name":"deep","meta":${nested(20_000)}}`, `{"name":"deep","extra":${nested(20_000)}}`]) {
      expect(body.length).toBeLessThan(1024 * 1024);
      const res = await post(body);
      expect([res.status, res.body]).toEqual([400, tooDeep]);
    }
    expect((await post(`{"name":"shallow","meta":${nested(60)}}`)).status).toBe(201);
    expect(await names()).toContain('shallow');
  });

  it('answers 400 instead of 500 to a value the database refuses (SQLSTATE class 22), echoing nothing', async () => {
    for (const name of ['nul\u0000byte', 'x'.repeat(101)]) {
      const res = await http.post(prefix).send({ name });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: 'Bad Request' });
    }
    expect(await names()).not.toContain('x'.repeat(101));
  });

  it('answers 409 instead of 500 to a unique violation on create and on update, echoing nothing', async () => {
    expect((await http.post(prefix).send({ name: 'taken' })).status).toBe(201);
    const duplicate = await http.post(prefix).send({ name: 'taken' });
    expect([duplicate.status, duplicate.body]).toEqual([409, { statusCode: 409, message: 'Conflict' }]);
    const other = await http.post(prefix).send({ name: 'free' });
    const renamed = await http.put(`${prefix}/${other.body.id}`).send({ name: 'taken' });
    expect([renamed.status, renamed.body]).toEqual([409, { statusCode: 409, message: 'Conflict' }]);
    expect((await names()).filter((name) => name === 'taken')).toHaveLength(1);
  });
});

describe('demo /todos titles the database would refuse', () => {
  let database: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await bootLabelApp(database.url, database.embedded);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers 400 instead of 201 to a demo todo carrying a constructor or __proto__ key', async () => {
    const http = request(app.getHttpServer());
    for (const key of ['constructor', '__proto__']) {
      const res = await http.post('/todos').set('content-type', 'application/json').send(`{"title":"x","${key}":{}}`);
      expect([res.status, res.body.message]).toEqual([400, [`property ${key} should not exist`]]);
    }
    expect((await http.get('/todos')).body).toEqual([]);
  });

  it.each([
    ['a NUL character', 'milk\u0000', 'title must not contain NUL characters'],
    ['whitespace only', ' \t\n ', 'title must not be only whitespace'],
    ['spaces only', '   ', 'title must not be only whitespace'],
  ])('answers 400 instead of 500 to a title with %s, on POST, PUT and PATCH', async (_case, title, message) => {
    const http = request(app.getHttpServer());
    const created = await http.post('/todos').send({ title: 'valid' });
    expect(created.status).toBe(201);
    for (const res of [
      await http.post('/todos').send({ title }),
      await http.put(`/todos/${created.body.id}`).send({ title }),
      await http.patch(`/todos/${created.body.id}`).send({ title }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: [message], error: 'Bad Request' });
    }
    expect((await http.get(`/todos/${created.body.id}`)).body.title).toBe('valid');
  });
});
