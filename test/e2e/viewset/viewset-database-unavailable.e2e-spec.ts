import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestDatabase, startTcpProxy, type TcpProxy, type TestDatabase } from '@tessera/database';
import { CapturingLogger } from '../../support/log-capture.js';
import { bootLabelApp, MOUNTS } from './label-viewset.fixture.js';

const UNAVAILABLE = { statusCode: 503, message: 'Service Unavailable' };

describe('ViewSet operations while the database is unavailable (PostgreSQL or PGlite behind a TCP proxy)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let itemIds: Record<string, number>;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy(database.url);
    app = await bootLabelApp(proxy.url, database.embedded, logger);
    http = request(app.getHttpServer());
    itemIds = {};
    for (const [mount, prefix] of Object.entries(MOUNTS)) {
      const created = await http.post(prefix).send({ name: `seed ${mount}` });
      expect(created.status).toBe(201);
      itemIds[prefix] = created.body.id;
    }
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await database?.close();
  });

  /** Every operation of both mounts and the demo's /todos, each timed. */
  async function everyOperation(): Promise<{ what: string; status: number; body: unknown; ms: number }[]> {
    const calls: [string, () => request.Test][] = [];
    for (const prefix of Object.values(MOUNTS)) {
      calls.push([`GET ${prefix}`, () => http.get(prefix)]);
      calls.push([`POST ${prefix}`, () => http.post(prefix).send({ name: 'while down' })]);
      calls.push([`GET ${prefix}/:id`, () => http.get(`${prefix}/${itemIds[prefix]}`)]);
      calls.push([`PUT ${prefix}/:id`, () => http.put(`${prefix}/${itemIds[prefix]}`).send({ name: 'renamed' })]);
    }
    calls.push(
      ['GET /todos', () => http.get('/todos')],
      ['POST /todos', () => http.post('/todos').send({ title: 't' })],
    );
    const results = [];
    for (const [what, call] of calls) {
      const started = performance.now();
      const res = await call();
      results.push({ what, status: res.status, body: res.body, ms: performance.now() - started });
    }
    return results;
  }

  /** Polls until every mount lists again; returns how long that took. */
  async function recovery(): Promise<number> {
    const started = performance.now();
    for (;;) {
      const statuses = await Promise.all(Object.values(MOUNTS).map(async (prefix) => (await http.get(prefix)).status));
      if (statuses.every((status) => status === 200)) return performance.now() - started;
      expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
      if (performance.now() - started > 5000) throw new Error(`still failing after 5 s: ${statuses.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('answers 503 instead of 500 when the database refuses connections and cuts open ones', async () => {
    await proxy.stop();
    try {
      for (const result of await everyOperation()) {
        expect({ what: result.what, status: result.status, body: result.body }).toEqual({
          what: result.what,
          status: 503,
          body: UNAVAILABLE,
        });
        expect(result.ms).toBeLessThan(3000);
      }
    } finally {
      await proxy.restart();
    }
    expect(await recovery()).toBeLessThan(5000);
    expect((await http.get(`${MOUNTS.ViewSetModule}/${itemIds[MOUNTS.ViewSetModule]}`)).body.name).toBe(
      'seed ViewSetModule',
    );
  });

  it('answers 503 within 3 s instead of hanging when the database stops answering, and serves again after it thaws', async () => {
    proxy.freeze();
    logger.lines.length = 0;
    try {
      for (const result of await everyOperation()) {
        expect([result.what, result.status, result.body]).toEqual([result.what, 503, UNAVAILABLE]);
        expect(result.ms).toBeLessThan(3000);
      }
    } finally {
      proxy.thaw();
    }
    // Logged as warnings naming the operation, never as unhandled errors with the driver's text.
    expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
    expect(logger.lines.filter((line) => line.includes('Database unavailable in create (POST /labels)'))).toHaveLength(
      1,
    );
    expect(logger.lines.join('\n')).not.toContain(String(new URL(database.url).port));
    expect(await recovery()).toBeLessThan(5000);
    const created = await http.post(MOUNTS['resource()']).send({ name: 'after the thaw' });
    expect(created.status).toBe(201);
  });
});
