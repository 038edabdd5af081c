import { describe, it, expect, afterEach } from '@jest/globals';
import { ConflictException, Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  Router,
  RouterHost,
  RouterModule,
  TESSERA_ERROR_MAPPER,
  TESSERA_PIPELINE_MIDDLEWARE,
  type ErrorMapper,
  type PipelineMiddlewareContribution,
} from '@tessera/web';

class TeapotError extends Error {}

@Injectable()
class Settings {
  readonly greeting = 'bonjour';
}

@Module({ providers: [Settings], exports: [Settings] })
class SettingsModule {}

/** A feature module contributing pre-route middleware and an error mapper, as identity does. */
@Module({
  providers: [
    {
      provide: TESSERA_PIPELINE_MIDDLEWARE,
      useValue: [
        {
          order: 200,
          middleware: async (ex, next) => {
            ex.attributes.set('trail', [...((ex.attributes.get('trail') as string[]) ?? []), 'feature-200']);
            await next();
          },
        },
      ] satisfies PipelineMiddlewareContribution[],
    },
    {
      provide: TESSERA_ERROR_MAPPER,
      useValue: ((error, ex) => {
        if (!(error instanceof TeapotError)) return false;
        ex.respond({ status: 418, body: { error: 'teapot' } });
        return true;
      }) satisfies ErrorMapper,
    },
  ],
})
class FeatureModule {}

function routes(): Router {
  return new Router()
    .get('/trail', (ex) => ex.respond({ body: ex.attributes.get('trail') }))
    .get('/teapot', () => {
      throw new TeapotError('claimed by the mapper');
    })
    .get('/conflict', () => {
      throw new ConflictException('taken');
    });
}

describe('RouterModule providers', () => {
  let app: INestApplication | undefined;
  afterEach(async () => app?.close());

  async function boot(root: ReturnType<typeof RouterModule.forRoot>): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({ imports: [root, FeatureModule] }).compile();
    const instance = moduleRef.createNestApplication({ logger: false });
    await instance.init();
    return instance;
  }

  it('runs pre-route middleware from every module sorted by order, before the router', async () => {
    app = await boot(
      RouterModule.forRoot({
        routers: [{ useValue: routes() }],
        middleware: [
          {
            order: 300,
            middleware: async (ex, next) => {
              ex.attributes.set('trail', [...((ex.attributes.get('trail') as string[]) ?? []), 'root-300']);
              await next();
            },
          },
          {
            order: 100,
            middleware: async (ex, next) => {
              ex.attributes.set('trail', ['root-100']);
              await next();
            },
          },
        ],
      }),
    );
    const res = await request(app.getHttpServer()).get('/trail');
    expect(res.body).toEqual(['root-100', 'feature-200', 'root-300']);
  });

  it('lets a registered error mapper claim an error, and renders HttpExceptions as Nest does', async () => {
    app = await boot(RouterModule.forRoot({ routers: [{ useValue: routes() }] }));
    const teapot = await request(app.getHttpServer()).get('/teapot');
    expect(teapot.status).toBe(418);
    expect(teapot.body).toEqual({ error: 'teapot' });
    const conflict = await request(app.getHttpServer()).get('/conflict');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ statusCode: 409, message: 'taken', error: 'Conflict' });
  });

  it('builds routers from forRootAsync with injected providers and options', async () => {
    app = await boot(
      RouterModule.forRootAsync({
        imports: [SettingsModule],
        inject: [Settings],
        useFactory: (settings: Settings) => ({
          options: { strictTrailingSlash: true },
          routers: [
            {
              useValue: new Router({ strictTrailingSlash: true }).get('/greet/', (ex) =>
                ex.respond({ body: settings.greeting }),
              ),
            },
          ],
        }),
      }),
    );
    const res = await request(app.getHttpServer()).get('/greet/');
    expect(res.text).toBe('bonjour');
    expect((await request(app.getHttpServer()).get('/greet')).status).toBe(404);
    expect(
      app
        .get(RouterHost)
        .router?.routes()
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(['GET /greet/']);
  });

  it('merges forFeature routers into the same table, so 405 and Allow consider every router', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        RouterModule.forRoot({
          routers: [{ useValue: new Router().get('/items/:id', (ex) => ex.respond({ body: 'get' })) }],
        }),
        RouterModule.forFeature({
          routers: [{ useValue: new Router().delete('/items/:itemId', (ex) => ex.respond({ status: 204 })) }],
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const res = await request(app.getHttpServer()).put('/items/1');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD, DELETE');
    expect((await request(app.getHttpServer()).delete('/items/1')).status).toBe(204);
  });

  it('keeps bodies of radix routes readable when nestBodyLimitBytes registers Nest parsers', async () => {
    const router = new Router().post('/echo', async (ex) =>
      ex.respond({ body: await ex.readJson({ limitBytes: 100 }) }),
    );
    app = await boot(RouterModule.forRoot({ routers: [{ useValue: router }], options: { nestBodyLimitBytes: 10 } }));
    const res = await request(app.getHttpServer()).post('/echo').send({ a: 'long enough for nest' });
    expect(res.body).toEqual({ a: 'long enough for nest' });
    const tooLarge = await request(app.getHttpServer())
      .post('/echo')
      .send({ a: 'x'.repeat(200) });
    expect(tooLarge.status).toBe(413);
  });
});
