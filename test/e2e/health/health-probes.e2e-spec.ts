import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MikroORM } from '@mikro-orm/core';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { ManagementListener } from '@tessera/web';
import { AppModule } from '../../../apps/demo/src/app.module.js';

const METRICS_KEY = 'demo-metrics-key-for-health-tests';
const ALL_OK = { database: 'ok', migrations: 'ok', selfTests: 'ok', rateLimiter: 'ok' };

/**
 * Issue 17, item 7: `GET /live` and `GET /ready` on the demo without a management listener (the
 * public listener serves them, beside the unchanged `/health` and `/metrics`), on the real database.
 */
describe('operator probes on the public listener', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot({ databaseUrl: database.url, env: { TESSERA_METRICS_API_KEY: METRICS_KEY } })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    http = request(app.getHttpServer());
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers /live with 200 and nothing else, never cached', async () => {
    const live = await http.get('/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'live' });
    expect(live.headers['cache-control']).toBe('no-store');
  });

  it('answers /ready with 200 and every check ok', async () => {
    const ready = await http.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: ALL_OK });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('keeps /health and /metrics on the public listener when no management port is set', async () => {
    expect(app.get(ManagementListener).address()).toBeUndefined();
    expect((await http.get('/health')).body).toEqual({ status: 'ok', database: 'up' });
    expect((await http.get('/metrics')).status).toBe(401);
    expect((await http.get('/metrics').set('x-api-key', METRICS_KEY)).status).toBe(200);
  });

  it('answers 503 naming migrations while the newest identity migration is missing from the ledger, and 200 once it is back', async () => {
    const connection = app.get(MikroORM).em.fork().getConnection();
    const [newest] = await connection.execute<Record<string, unknown>[]>(
      `select module, version, checksum, applied_at from tessera_identity.schema_migrations
       where module = 'identity' order by version desc limit 1`,
    );
    await connection.execute('delete from tessera_identity.schema_migrations where module = ? and version = ?', [
      newest!['module'],
      newest!['version'],
    ]);
    try {
      const behind = await http.get('/ready');
      expect(behind.status).toBe(503);
      expect(behind.body).toEqual({ status: 'unavailable', checks: { ...ALL_OK, migrations: 'failed' } });
      expect((await http.get('/live')).status).toBe(200);
    } finally {
      await connection.execute(
        'insert into tessera_identity.schema_migrations (module, version, checksum, applied_at) values (?, ?, ?, ?)',
        [newest!['module'], newest!['version'], newest!['checksum'], newest!['applied_at']],
      );
    }
    expect((await http.get('/ready')).body).toEqual({ status: 'ready', checks: ALL_OK });
  });

  it('stays ready once a newer build recorded a migration this one does not know (rolling deploy)', async () => {
    const connection = app.get(MikroORM).em.fork().getConnection();
    const future = 'tessera_identity_29991231000000_future';
    await connection.execute(
      `insert into tessera_identity.schema_migrations (module, version, checksum, applied_at)
       values ('identity', ?, ?, now())`,
      [future, 'f'.repeat(64)],
    );
    try {
      expect((await http.get('/ready')).body).toEqual({ status: 'ready', checks: ALL_OK });
    } finally {
      await connection.execute(
        `delete from tessera_identity.schema_migrations where module = 'identity' and version = ?`,
        [future],
      );
    }
  });
});
