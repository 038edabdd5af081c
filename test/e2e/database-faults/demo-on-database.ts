import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MikroORM } from '@mikro-orm/core';
import request from 'supertest';
import { createTestDatabase, startTcpProxy, type TcpProxy, type TestDatabase } from '@tessera/database';
import { AppModule, type DemoOptions } from '../../../apps/demo/src/app.module.js';

/** The origin the demo's identity configuration names (its default port). */
export const DEMO_ORIGIN = 'http://localhost:3000';
const BOOTSTRAP_SECRET = 'demo-bootstrap-secret-for-fault-tests';

/** A booted demo app and the owner's (restricted) bootstrap session cookie. */
export interface DemoOnDatabase {
  readonly app: INestApplication;
  readonly http: ReturnType<typeof request>;
  readonly cookie: string;
  /** Pooled connections the app's ORM holds (free or in use) or is opening. */
  pooled(): number;
  close(): Promise<void>;
}

/**
 * Boots the demo on `databaseUrl` with `database` pool/timeout options and bootstraps its owner,
 * whose session is restricted until a passkey is registered: `GET /identity/v1/me` and `/account`
 * read it and answer 401 `authentication_required` while the database answers.
 */
export async function bootDemoOnDatabase(
  databaseUrl: string,
  database: DemoOptions['database'] = {},
): Promise<DemoOnDatabase> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppModule.forRoot({
        databaseUrl,
        database,
        env: {
          TESSERA_METRICS_API_KEY: 'demo-metrics-key-for-fault-tests',
          TESSERA_BOOTSTRAP_SECRET: BOOTSTRAP_SECRET,
        },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  const http = request(app.getHttpServer());
  const boot = await http.post('/identity/v1/bootstrap').set('origin', DEMO_ORIGIN).send({
    secret: BOOTSTRAP_SECRET,
    displayName: 'Demo Owner',
    primaryEmail: 'owner@example.com',
    organizationName: 'Demo',
    organizationSlug: 'demo',
  });
  if (boot.status !== 201) {
    await app.close();
    throw new Error(`bootstrap failed with ${boot.status}`);
  }
  const cookie = (boot.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
  const pool = (
    app.get(MikroORM).em.getConnection() as unknown as {
      getKnex(): { client: { pool: { numFree(): number; numUsed(): number; numPendingCreates(): number } } };
    }
  ).getKnex().client.pool;
  return {
    app,
    http,
    cookie,
    pooled: () => pool.numFree() + pool.numUsed() + pool.numPendingCreates(),
    close: () => app.close(),
  };
}

/** The demo on a fresh test database reached through a TCP proxy the test can freeze or stop. */
export interface DemoBehindProxy {
  readonly database: TestDatabase;
  readonly proxy: TcpProxy;
  readonly demo: DemoOnDatabase;
  /** Lets the database answer again, then closes the demo, the proxy and the database. */
  close(): Promise<void>;
}

/**
 * {@link bootDemoOnDatabase} behind {@link startTcpProxy}, with the default wait bounds, on the
 * `DATABASE_URL` server or embedded PGlite behind its socket.
 */
export async function bootDemoBehindProxy(): Promise<DemoBehindProxy> {
  const database = await createTestDatabase();
  const proxy = await startTcpProxy(database.url);
  const closeDatabase = async () => {
    await proxy.close();
    await database.close();
  };
  let demo: DemoOnDatabase;
  try {
    // Behind the proxy an embedded server is not recognised by its URL: it has one session.
    demo = await bootDemoOnDatabase(proxy.url, { pool: database.embedded ? { min: 0, max: 1 } : {} });
  } catch (error) {
    await closeDatabase();
    throw error;
  }
  return {
    database,
    proxy,
    demo,
    close: async () => {
      proxy.thaw();
      await proxy.restart();
      await demo.close();
      await closeDatabase();
    },
  };
}

/** Polls `condition` every 50 ms until it holds, failing after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
