import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createServer, type AddressInfo, type Server } from 'node:net';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { ManagementListener, ManagementListenerError } from '@tessera/web';
import { AppModule, type DemoOptions } from '../../../apps/demo/src/app.module.js';

const METRICS_KEY = 'demo-metrics-key-for-management-tests';

async function bootDemo(
  database: TestDatabase,
  env: NodeJS.ProcessEnv,
  options: Pick<DemoOptions, 'managementListener'> = {},
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppModule.forRoot({
        ...options,
        databaseUrl: database.url,
        env: { TESSERA_METRICS_API_KEY: METRICS_KEY, ...env },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

/**
 * Issue 17, item 7: with `TESSERA_MANAGEMENT_PORT` the demo serves `/live`, `/ready` and `/metrics`
 * on a second listener only (port 0 here, so parallel workers never collide), and closes it with
 * the application.
 */
describe('the demo with a management listener', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let management: ReturnType<typeof request>;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await bootDemo(database, { TESSERA_MANAGEMENT_PORT: '0', TESSERA_MANAGEMENT_HOST: '127.0.0.1' });
    port = app.get(ManagementListener).address()!.port;
    management = request(`http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('serves /live, /ready and /metrics on the management port', async () => {
    expect(port).toBeGreaterThan(0);
    expect((await management.get('/live')).body).toEqual({ status: 'live' });
    const ready = await management.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', selfTests: 'ok', rateLimiter: 'ok' },
    });
    expect((await management.get('/metrics')).status).toBe(401);
    const metrics = await management.get('/metrics').set('x-api-key', METRICS_KEY);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^process_uptime_seconds \d+\n$/);
  });

  it('keeps them off the public listener (404) while the public routes stay there', async () => {
    const publicHttp = request(app.getHttpServer());
    for (const path of ['/live', '/ready', '/metrics']) {
      expect({ path, status: (await publicHttp.get(path).set('x-api-key', METRICS_KEY)).status }).toEqual({
        path,
        status: 404,
      });
    }
    expect((await publicHttp.get('/health')).status).toBe(200);
    expect((await publicHttp.get('/hello/ops')).status).toBe(200);
  });

  it('serves nothing else on the management port', async () => {
    for (const path of ['/health', '/hello/ops', '/todos', '/']) {
      expect({ path, status: (await management.get(path)).status }).toEqual({ path, status: 404 });
    }
    expect((await management.post('/ready')).status).toBe(405);
  });

  it('fails the start with a clear error when the management port is already in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as AddressInfo).port;
    const other = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [
        AppModule.forRoot({
          databaseUrl: other.url,
          env: { TESSERA_MANAGEMENT_PORT: String(taken), TESSERA_MANAGEMENT_HOST: '127.0.0.1' },
        }),
      ],
    }).compile();
    const failing = moduleRef.createNestApplication({ logger: false });
    try {
      const started = failing.init();
      await expect(started).rejects.toBeInstanceOf(ManagementListenerError);
      await expect(started).rejects.toThrow(`management listener cannot listen on 127.0.0.1:${taken}: EADDRINUSE`);
    } finally {
      await failing.close();
      await other.close();
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 120_000);

  it('closes the management listener when the application closes', async () => {
    const other = await createTestDatabase();
    const closing = await bootDemo(other, { TESSERA_MANAGEMENT_PORT: '0', TESSERA_MANAGEMENT_HOST: '127.0.0.1' });
    const listener = closing.get(ManagementListener);
    const closingPort = listener.address()!.port;
    const keptAlive = request.agent(`http://127.0.0.1:${closingPort}`);
    expect((await keptAlive.get('/live')).status).toBe(200);
    await closing.close();
    await other.close();
    expect(listener.address()).toBeUndefined();
    await expect(request(`http://127.0.0.1:${closingPort}`).get('/live').timeout(5000)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  }, 120_000);

  it('starts no management listener for one-off commands (managementListener: false), whatever the environment says', async () => {
    const other = await createTestDatabase();
    const command = await bootDemo(
      other,
      { TESSERA_MANAGEMENT_PORT: String(port), TESSERA_MANAGEMENT_HOST: '127.0.0.1' },
      { managementListener: false },
    );
    try {
      expect(command.get(ManagementListener).address()).toBeUndefined();
      // The running server keeps its port.
      expect((await management.get('/live')).status).toBe(200);
    } finally {
      await command.close();
      await other.close();
    }
  }, 120_000);
});
