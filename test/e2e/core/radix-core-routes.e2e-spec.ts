import { afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ApiKeyAuthenticationProvider,
  BasicAuthenticationProvider,
  constantTimeEqual,
  CoreAuthenticationProvider,
  CoreModule,
  getCorePrincipal,
  requireCorePermission,
  requireCoreRole,
  sha256Hex,
} from '@tessera/core';
import { Router, RouterModule, type RouterModuleOptions } from '@tessera/web';
import request from 'supertest';

const GRAFANA_KEY = 'mk_9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a';
const BILLING_KEY = 'wk_0f1e2d3c4b5a69788796a5b4c3d2e1f0';

const apiKeys = () =>
  new ApiKeyAuthenticationProvider({
    header: 'x-api-key',
    keys: [
      {
        digest: sha256Hex(GRAFANA_KEY),
        principal: { kind: 'api_key', id: 'grafana', roles: ['viewer'], permissions: ['metrics.read'] },
      },
      {
        digest: sha256Hex(BILLING_KEY),
        principal: { kind: 'api_key', id: 'billing', permissions: ['webhook.deliver'] },
      },
    ],
  });

const scrape = new BasicAuthenticationProvider({
  realm: 'metrics',
  verify: async ({ userId, password }) => {
    const userOk = constantTimeEqual(userId, 'prometheus');
    const passwordOk = constantTimeEqual(password, 'scrape-pass');
    return userOk && passwordOk
      ? { kind: 'basic', id: userId, roles: ['scraper'], permissions: ['metrics.read'] }
      : null;
  },
});

async function boot(options: RouterModuleOptions): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      CoreModule.forRoot({ provider: apiKeys() }),
      RouterModule.forRoot({
        options,
        routers: [
          {
            inject: [CoreAuthenticationProvider],
            useFactory: (provider: CoreAuthenticationProvider) =>
              new Router()
                .get('/metrics', requireCorePermission('metrics.read', provider), (ex) =>
                  ex.respond({ body: { series: 3, caller: getCorePrincipal(ex)?.id } }),
                )
                .post('/webhooks/billing', requireCorePermission('webhook.deliver', provider), (ex) =>
                  ex.respond({ status: 202, body: { accepted: true } }),
                )
                .get('/scrape', requireCoreRole('scraper', scrape), (ex) => ex.respond({ body: 'up 1\n' })),
          },
        ],
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe.each(['express', 'server'] as const)('core-protected radix routes (mount: %s)', (mount) => {
  let app: INestApplication | undefined;
  afterEach(async () => app?.close());

  it("answers 401 with Nest's Unauthorized JSON when no API key is sent", async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/metrics');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: 'Unauthorized' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers 401 for a wrong key and for a key sent twice', async () => {
    app = await boot({ mount });
    const wrong = await request(app.getHttpServer()).get('/metrics').set('x-api-key', `${GRAFANA_KEY}0`);
    expect(wrong.status).toBe(401);
    const twice = await request(app.getHttpServer())
      .get('/metrics')
      .set('x-api-key', [GRAFANA_KEY, GRAFANA_KEY] as unknown as string);
    expect(twice.status).toBe(401);
  });

  it("answers 403 with Nest's Forbidden JSON for a valid key without the permission", async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/metrics').set('x-api-key', BILLING_KEY);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, message: 'Forbidden' });
    const webhook = await request(app.getHttpServer()).post('/webhooks/billing').set('x-api-key', GRAFANA_KEY).send({});
    expect(webhook.status).toBe(403);
  });

  it('runs the handler with the principal for a key holding the permission', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/metrics').set('x-api-key', GRAFANA_KEY);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ series: 3, caller: 'grafana' });
    const webhook = await request(app.getHttpServer())
      .post('/webhooks/billing')
      .set('x-api-key', BILLING_KEY)
      .send({ id: 1 });
    expect(webhook.status).toBe(202);
  });

  it('protects HEAD served by the GET route as well', async () => {
    app = await boot({ mount });
    expect((await request(app.getHttpServer()).head('/metrics')).status).toBe(401);
    expect((await request(app.getHttpServer()).head('/metrics').set('x-api-key', GRAFANA_KEY)).status).toBe(200);
  });

  it('challenges a Basic-auth scrape endpoint with WWW-Authenticate and serves valid credentials', async () => {
    app = await boot({ mount });
    const anonymous = await request(app.getHttpServer()).get('/scrape');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="metrics", charset="UTF-8"');
    const wrong = await request(app.getHttpServer()).get('/scrape').auth('prometheus', 'nope');
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="metrics", charset="UTF-8"');
    const malformed = await request(app.getHttpServer()).get('/scrape').set('authorization', 'Basic cHJvbWV0aGV1cw');
    expect(malformed.status).toBe(401);
    const ok = await request(app.getHttpServer()).get('/scrape').auth('prometheus', 'scrape-pass');
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('up 1\n');
  });

  it('does not treat an API key as Basic credentials or the reverse', async () => {
    app = await boot({ mount });
    const keyOnScrape = await request(app.getHttpServer()).get('/scrape').set('x-api-key', GRAFANA_KEY);
    expect(keyOnScrape.status).toBe(401);
    const basicOnMetrics = await request(app.getHttpServer()).get('/metrics').auth('prometheus', 'scrape-pass');
    expect(basicOnMetrics.status).toBe(401);
  });
});
