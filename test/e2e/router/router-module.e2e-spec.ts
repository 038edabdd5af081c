import { describe, it, expect, afterEach, jest } from '@jest/globals';
import { Controller, Get, Injectable, Logger, Module, Post, Body, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Router, RouterModule, TESSERA_EXCHANGE, type Exchange, type RouterModuleOptions } from '@tessera/web';

@Injectable()
class Greeter {
  greet(name: string): string {
    return `hello ${name}`;
  }
}

@Module({ providers: [Greeter], exports: [Greeter] })
class GreeterModule {}

@Controller('users')
class UsersController {
  @Get('controller-only')
  list(): string[] {
    return ['from-nest'];
  }

  @Get('echo-exchange')
  echo(): string {
    return 'nest';
  }

  @Post(':id/json')
  json(@Body() body: unknown): unknown {
    return { nest: body };
  }
}

function radix(): Router {
  const router = new Router();
  router.get('/users/:id', (ex) => ex.respond({ body: { id: ex.pathParam('id') } }));
  router.post('/radix/echo', async (ex) => ex.respond({ body: { radix: await ex.readJson({ limitBytes: 1024 }) } }));
  router.get('/boom', () => {
    throw new Error('secret database password=hunter2');
  });
  router.get('/silent', () => undefined);
  return router;
}

async function boot(options: RouterModuleOptions = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RouterModule.forRoot({
        options,
        imports: [GreeterModule],
        routers: [
          { useValue: radix() },
          {
            inject: [Greeter],
            useFactory: (greeter: Greeter) =>
              new Router().get('/hello/:name', (ex) => ex.respond({ body: greeter.greet(ex.pathParam('name')!) })),
          },
        ],
      }),
    ],
    controllers: [UsersController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe.each(['express', 'server'] as const)('RouterModule with mount: %s', (mount) => {
  let app: INestApplication | undefined;
  afterEach(async () => app?.close());

  it('serves a radix route with a decoded parameter', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/users/caf%C3%A9');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'café' });
  });

  it('lets unmatched requests fall through to Nest controllers under the same prefix', async () => {
    app = await boot({ mount });
    // `/users/controller-only` is matched by the radix `/users/:id`; a deeper path is not.
    const res = await request(app.getHttpServer()).get('/users/x/y');
    expect(res.status).toBe(404);
    const nest = await request(app.getHttpServer()).post('/users/7/json').send({ a: 1 });
    expect(nest.status).toBe(201);
    expect(nest.body).toEqual({ nest: { a: 1 } });
  });

  it('injects a Nest provider into a radix handler through the factory', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/hello/ada');
    expect(res.text).toBe('hello ada');
  });

  it('answers 405 with Allow for a path served by other methods', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).delete('/users/1');
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(res.body).toEqual({ statusCode: 405, message: 'Method Not Allowed' });
  });

  it('answers HEAD from the GET handler without a body', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).head('/users/1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text ?? '').toBe('');
  });

  it('reads a JSON body in a radix handler while Nest controllers keep their parser', async () => {
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).post('/radix/echo').send({ b: 2 });
    expect(res.body).toEqual({ radix: { b: 2 } });
  });

  it('answers 500 without the exception text when a handler throws', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(res.text).not.toContain('hunter2');
    logged.mockRestore();
  });

  it('answers 500 and logs a programming error when a handler resolves without responding', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    app = await boot({ mount });
    const res = await request(app.getHttpServer()).get('/silent');
    expect(res.status).toBe(500);
    expect(logged.mock.calls.map((c) => String(c[0])).join('\n')).toContain(
      'resolved without calling exchange.respond()',
    );
    logged.mockRestore();
  });
});

describe('RouterModule bootstrap', () => {
  it('fails bootstrap when two forFeature registrations declare the same route, naming both sources', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        RouterModule.forRoot(),
        RouterModule.forFeature({
          name: 'billing',
          routers: [{ useValue: new Router().get('/x', (ex) => ex.respond({ body: 1 })) }],
        }),
        RouterModule.forFeature({
          name: 'reports',
          routers: [{ useValue: new Router().get('/x', (ex) => ex.respond({ body: 2 })) }],
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      'Duplicate route: GET /x (same shape as GET /x) [registered by reports; first registered by billing]',
    );
    await app.close();
  });

  it('runs app.use middleware before radix routes in express mode and shares the exchange with Nest', async () => {
    @Controller()
    class ExchangeController {
      @Get('nest-side')
      read(@Body() _b: unknown): string {
        return 'ok';
      }
    }
    @Module({
      imports: [RouterModule.forRoot({ routers: [{ useValue: radix() }] })],
      controllers: [ExchangeController],
    })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false });
    const seen: string[] = [];
    app.use((req: { url: string }, _res: unknown, next: () => void) => {
      seen.push(req.url);
      next();
    });
    app.use((req: Record<symbol, Exchange | undefined>, _res: unknown, next: () => void) => {
      seen.push(req[TESSERA_EXCHANGE] === undefined ? 'no-exchange-yet' : 'exchange');
      next();
    });
    await app.init();
    const res = await request(app.getHttpServer()).get('/users/1');
    expect(res.status).toBe(200);
    expect(seen).toEqual(['/users/1', 'no-exchange-yet']);
    await app.close();
  });
});
