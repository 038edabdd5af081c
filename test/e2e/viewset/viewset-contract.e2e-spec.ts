import { afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  Injectable,
  Logger,
  Module,
  UseGuards,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Observable } from 'rxjs';
import request, { type Response } from 'supertest';
import { Router, RouterModule, type Exchange } from '@tessera/web';
import { BaseViewSet, resource, ViewSetConfigError, ViewSetModule } from '@tessera/viewset';
import {
  bootViewSetApp,
  EchoViewSet,
  FailingViewSet,
  FullViewSet,
  ListCreateViewSet,
  NothingViewSet,
  PatchViewSet,
  TodoStore,
  todoSerializer,
  type Todo,
  type ViewSetHost,
  type ViewSetSetup,
} from '../../support/viewset-fixtures.js';

type Agent = ReturnType<typeof request>;

/** What the contract compares between the two paths: status, `Allow`, `Location` and body. */
interface Observed {
  status: number;
  allow: string | undefined;
  location: string | undefined;
  body: unknown;
}

interface Row {
  id: string;
  title: string;
  setup: ViewSetSetup;
  send: (agent: Agent) => Promise<Response>;
  expected: Observed;
}

const HOSTS: ViewSetHost[] = ['resource()', 'ViewSetModule'];
const NOT_ALLOWED = { statusCode: 405, message: 'Method Not Allowed' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found' };
const TOO_LARGE = { statusCode: 400, message: 'Payload Too Large', error: 'Bad Request' };
const invalid = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const seeded = [{ id: 1, title: 'first' }];

function observed(status: number, body: unknown, headers: { allow?: string; location?: string } = {}): Observed {
  return { status, allow: headers.allow, location: headers.location, body };
}

function observe(res: Response): Observed {
  const text = res.text ?? '';
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json') && text !== '';
  return {
    status: res.status,
    allow: res.headers['allow'],
    location: res.headers['location'],
    body: json ? JSON.parse(text) : text,
  };
}

const json = (agent: Agent, method: 'post' | 'put' | 'patch', path: string, body: string, type = 'application/json') =>
  agent[method](path).set('content-type', type).send(body);

const ROWS: Row[] = [
  {
    id: 'V1',
    title: 'GET on an item of a list+create ViewSet is 405 with an empty Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.get('/todos/1'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V2',
    title: 'DELETE on the collection lists the implemented collection methods',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.delete('/todos'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, POST' }),
  },
  {
    id: 'V3',
    title: 'an unimplemented retrieve is 405, never 404',
    setup: { viewSet: NothingViewSet },
    send: (a) => a.get('/todos/1'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V4',
    title: 'a retrieve resolving null is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => a.get('/todos/9'),
    expected: observed(404, NOT_FOUND),
  },
  {
    id: 'R16',
    title: 'a malformed percent-encoded id is 400 before the ViewSet runs',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.get('/todos/%zz'),
    expected: observed(400, { statusCode: 400, message: 'Malformed percent-encoding in path', error: 'Bad Request' }),
  },
  {
    id: 'V5',
    title: 'a delete resolving true is 204 with an empty body',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.delete('/todos/1'),
    expected: observed(204, ''),
  },
  {
    id: 'V5',
    title: 'a delete resolving false is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => a.delete('/todos/1'),
    expected: observed(404, NOT_FOUND),
  },
  {
    id: 'V6',
    title: 'create answers 201 with toJson output and Location',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}'),
    expected: observed(201, { id: 7, title: 'a' }, { location: '/todos/7' }),
  },
  {
    id: 'V7',
    title: 'a body failing validation is 400 in ValidationPipe format',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":5}'),
    expected: observed(400, invalid('title must be a string')),
  },
  {
    id: 'V8',
    title: 'an unknown property is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a","x":1}'),
    expected: observed(400, invalid('property x should not exist')),
  },
  {
    id: 'V9',
    title: 'malformed JSON is 400 Malformed JSON body',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{'),
    expected: observed(400, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' }),
  },
  {
    id: 'V10',
    title: 'a text/plain body is 415',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', 'title=a', 'text/plain'),
    expected: observed(415, { statusCode: 415, message: 'Unsupported Media Type' }),
  },
  {
    id: 'V11',
    title: 'a JSON array body is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '[]'),
    expected: observed(400, invalid('Validation failed (object is expected)')),
  },
  {
    id: 'V12',
    title: 'an unimplemented create is 405 before validation',
    setup: { viewSet: NothingViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":5,"x":1}'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: 'V13',
    title: 'an unexpected error is 500 without its message',
    setup: { viewSet: FailingViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}'),
    expected: observed(500, { statusCode: 500, message: 'Internal server error' }),
  },
  {
    id: 'V14',
    title: 'update throwing NotFoundException is 404',
    setup: { viewSet: FullViewSet },
    send: (a) => json(a, 'put', '/todos/9', '{"title":"b"}'),
    expected: observed(404, { statusCode: 404, message: 'Not Found' }),
  },
  {
    id: 'V15',
    title: 'PATCH without partialUpdate is 405 listing the implemented item methods',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => json(a, 'patch', '/todos/1', '{"title":"b"}'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, PUT, DELETE' }),
  },
  {
    id: 'V16',
    title: 'PATCH with an empty object is 200 (missing properties allowed)',
    setup: { viewSet: PatchViewSet, seed: seeded },
    send: (a) => json(a, 'patch', '/todos/1', '{}'),
    expected: observed(200, { id: 1, title: 'first' }),
  },
  {
    id: 'V17',
    title: 'a prefix with a trailing slash is normalised',
    setup: { viewSet: ListCreateViewSet, prefix: '/todos/', seed: seeded },
    send: (a) => a.get('/todos'),
    expected: observed(200, [{ id: 1, title: 'first' }]),
  },
  {
    id: 'V18',
    title: 'a deeper path falls through to Nest 404',
    setup: { viewSet: FullViewSet, seed: seeded },
    send: (a) => a.get('/todos/1/extra'),
    expected: observed(404, { message: 'Cannot GET /todos/1/extra', error: 'Not Found', statusCode: 404 }),
  },
  {
    id: 'V20',
    title: 'retrieve receives the decoded id',
    setup: { viewSet: EchoViewSet },
    send: (a) => a.get('/todos/a%20b'),
    expected: observed(200, { id: 0, title: '|a b' }),
  },
  {
    id: 'V21',
    title: 'an empty list is 200 []',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.get('/todos'),
    expected: observed(200, []),
  },
  {
    id: 'V22',
    title: 'an HttpException passes through unchanged',
    setup: { viewSet: FailingViewSet },
    send: (a) => a.get('/todos'),
    expected: observed(409, { message: 'taken', error: 'Conflict', statusCode: 409 }),
  },
  {
    id: 'V23',
    title: 'HEAD on the collection is 200 without a body',
    setup: { viewSet: ListCreateViewSet, seed: seeded },
    send: (a) => a.head('/todos'),
    expected: observed(200, ''),
  },
  {
    id: 'V24',
    title: 'OPTIONS on the collection is 405 with the collection Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.options('/todos'),
    expected: observed(405, NOT_ALLOWED, { allow: 'GET, HEAD, POST' }),
  },
  {
    id: 'V24',
    title: 'POST on an item is 405 with the (empty) item Allow',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos/1', '{"title":"a"}'),
    expected: observed(405, NOT_ALLOWED, { allow: '' }),
  },
  {
    id: '7.5',
    title: 'HEAD on an unimplemented retrieve is 405',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => a.head('/todos/1'),
    expected: observed(405, '', { allow: '' }),
  },
  {
    id: '7.3',
    title: 'a body that is JSON null is 400',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', 'null'),
    expected: observed(400, invalid('Validation failed (object is expected)')),
  },
  {
    id: '5.2',
    title: 'an empty JSON body is malformed',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', ''),
    expected: observed(400, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' }),
  },
  {
    id: '5.2',
    title: 'a JSON body in another charset is 415',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', '{"title":"a"}', 'application/json; charset=latin1'),
    expected: observed(415, { statusCode: 415, message: 'Unsupported Media Type' }),
  },
  {
    id: '7.4',
    title: 'a body over the limit is 400 Payload Too Large, never 413',
    setup: { viewSet: ListCreateViewSet, bodyLimitBytes: 64 },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'x'.repeat(100) })),
    expected: observed(400, TOO_LARGE),
  },
  {
    id: '7.4',
    title: 'a body over the default 1 MiB limit is 400 Payload Too Large',
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'x'.repeat(1024 * 1024) })),
    expected: observed(400, TOO_LARGE),
  },
  {
    id: '7.4',
    title: "a 200 kB body is read under the ViewSet limit, not Nest's 100 kB",
    setup: { viewSet: ListCreateViewSet },
    send: (a) => json(a, 'post', '/todos', JSON.stringify({ title: 'y'.repeat(200 * 1024) })),
    expected: observed(201, { id: 7, title: 'y'.repeat(200 * 1024) }, { location: '/todos/7' }),
  },
  {
    id: '7.4',
    title: 'a prefix parameter and the id reach the ViewSet decoded',
    setup: { viewSet: EchoViewSet, prefix: '/orgs/:org/todos' },
    send: (a) => a.get('/orgs/acme%20co/todos/a%2Fb'),
    expected: observed(200, { id: 0, title: 'acme co|a/b' }),
  },
  {
    id: '7.4',
    title: 'an item created under a prefix parameter gets an encoded Location on the request path',
    setup: { viewSet: ListCreateViewSet, prefix: '/orgs/:org/todos' },
    send: (a) => json(a, 'post', '/orgs/a%20b/todos/', '{"title":"a"}'),
    expected: observed(201, { id: 7, title: 'a' }, { location: '/orgs/a%20b/todos/7' }),
  },
];

async function run(host: ViewSetHost, row: Row): Promise<Observed> {
  const app = await bootViewSetApp(host, row.setup);
  try {
    return observe(await row.send(request(app.getHttpServer())));
  } finally {
    await app.close();
  }
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe.each(HOSTS)('ViewSet contract through %s', (host) => {
  it.each(ROWS)('$id: $title', async (row) => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined); // V13 logs its 500
    const result = await run(host, row);
    expect(result).toEqual(row.expected);
    expect(JSON.stringify(result.body)).not.toContain('password');
    expect(JSON.stringify(result.body)).not.toContain('s3cret');
  });

  it("V19: rejects a prefix that declares ':id'", () => {
    const register = (): unknown =>
      host === 'resource()'
        ? resource(new Router(), '/orgs/:id/todos', new FullViewSet(new TodoStore()), todoSerializer)
        : ViewSetModule.register([{ prefix: '/orgs/:id/todos', viewSet: FullViewSet, serializer: todoSerializer }]);
    expect(register).toThrow("Prefix must not declare ':id': /orgs/:id/todos");
  });

  it('logs an unexpected error with the request id, never sending it', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    // A pre-route middleware (identity's request id, order 100) echoes the id before the route runs.
    const app = await bootViewSetApp(host, {
      viewSet: FailingViewSet,
      middleware: [{ order: 100, middleware: (ex, next) => (ex.setHeader('x-request-id', 'req_abc'), next()) }],
    });
    const res = await request(app.getHttpServer()).post('/todos').send({ title: 'a' });
    await app.close();
    expect(res.status).toBe(500);
    const lines = logged.mock.calls.map((call) => String(call[0]));
    expect(lines.some((line) => line.includes('req_abc') && line.includes('db password=x'))).toBe(true);
  });
});

describe('V24: one ViewSet through resource() and ViewSetModule', () => {
  it('answers every row with the same status, Allow, Location and body', async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined); // V13 logs its 500
    for (const row of ROWS) {
      const [viaResource, viaModule] = [await run('resource()', row), await run('ViewSetModule', row)];
      expect({ row: `${row.id} ${row.title}`, ...viaModule }).toEqual({
        row: `${row.id} ${row.title}`,
        ...viaResource,
      });
    }
  });
});

@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-api-key'] === 'k';
  }
}

@Injectable()
class StampInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    context.switchToHttp().getResponse<{ setHeader(n: string, v: string): void }>().setHeader('x-stamp', 'viewset');
    return next.handle();
  }
}

/** Reads what RouterModule's pipeline left on the exchange. */
@Injectable()
class AttributeViewSet extends BaseViewSet<Todo> {
  override async list(exchange: Exchange): Promise<Todo[]> {
    return [{ id: 1, title: String(exchange.attributes.get('requestId')), ownerSecret: 's3cret' }];
  }
}

function storeWith(seed: { id: number; title: string }[]) {
  @Module({ providers: [{ provide: TodoStore, useValue: new TodoStore(seed) }], exports: [TodoStore] })
  class SeededStoreModule {}
  return SeededStoreModule;
}

describe('ViewSetModule as Nest controllers', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function boot(imports: Parameters<typeof Test.createTestingModule>[0]['imports']): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({ imports }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    return app;
  }

  it('injects constructor dependencies into the ViewSet provider', async () => {
    const server = (
      await boot([
        ViewSetModule.register([{ prefix: '/todos', viewSet: FullViewSet, serializer: todoSerializer }], {
          imports: [storeWith(seeded)],
        }),
      ])
    ).getHttpServer();
    expect((await request(server).get('/todos/1')).body).toEqual({ id: 1, title: 'first' });
    expect((await request(server).delete('/todos/1')).status).toBe(204);
    expect((await request(server).get('/todos/1')).status).toBe(404);
  });

  it('applies entry guards and interceptors to the generated controller', async () => {
    const entry = {
      prefix: '/todos',
      viewSet: FullViewSet,
      serializer: todoSerializer,
      guards: [ApiKeyGuard],
      interceptors: [StampInterceptor],
    };
    const server = (await boot([ViewSetModule.register([entry], { imports: [storeWith(seeded)] })])).getHttpServer();
    const denied = await request(server).get('/todos/1');
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: 'Forbidden resource', error: 'Forbidden', statusCode: 403 });
    // The guard runs before the 405 fallback too: an anonymous caller learns nothing about the resource.
    expect((await request(server).post('/todos/1')).status).toBe(403);
    const allowed = await request(server).get('/todos/1').set('x-api-key', 'k');
    expect(allowed.status).toBe(200);
    expect(allowed.headers['x-stamp']).toBe('viewset');
  });

  it('applies guard decorators given in guards and in forRoot options to forFeature controllers', async () => {
    const marks: string[] = [];
    const mark =
      (name: string): ClassDecorator =>
      (target) => {
        marks.push(`${name}:${target.name}`);
        UseGuards(ApiKeyGuard)(target);
      };
    const server = (
      await boot([
        ViewSetModule.forRoot({ decorators: [mark('root')] }),
        ViewSetModule.forFeature(
          [{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer, guards: [mark('entry')] }],
          { imports: [storeWith([])] },
        ),
      ])
    ).getHttpServer();
    expect(marks).toEqual(['entry:ListCreateViewSetController', 'root:ListCreateViewSetController']);
    expect((await request(server).get('/todos')).status).toBe(403);
    expect((await request(server).get('/todos').set('x-api-key', 'k')).status).toBe(200);
  });

  it('fails bootstrap when forFeature controllers carry the options of another forRoot call', async () => {
    const feature = ViewSetModule.forFeature(
      [{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer }],
      { imports: [storeWith([])] },
    );
    ViewSetModule.forRoot({ decorators: [UseGuards(ApiKeyGuard)] });
    const otherRoot = ViewSetModule.forRoot({});
    await expect(Test.createTestingModule({ imports: [otherRoot, feature] }).compile()).rejects.toThrow(
      ViewSetConfigError,
    );
  });

  it('honours the global prefix and shares the RouterModule exchange with the generated controller', async () => {
    @Module({
      imports: [
        RouterModule.forRoot({
          middleware: [{ order: 100, middleware: (ex, next) => (ex.attributes.set('requestId', 'req_1'), next()) }],
        }),
        ViewSetModule.register(
          [
            { prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer },
            { prefix: '/whoami', viewSet: AttributeViewSet, serializer: todoSerializer },
          ],
          { imports: [storeWith([])], bodyLimitBytes: 64 },
        ),
      ],
    })
    class AppModule {}
    const nest = await NestFactory.create(AppModule, { logger: false });
    nest.setGlobalPrefix('api');
    app = await nest.init();
    const server = app.getHttpServer();
    const created = await request(server).post('/api/todos').send({ title: 'a' });
    expect(created.status).toBe(201);
    expect(created.headers['location']).toBe('/api/todos/7');
    // Under the global prefix the body is still read by the ViewSet layer, not by Nest's parser.
    expect((await request(server).post('/api/todos').set('content-type', 'application/json').send('{')).body).toEqual({
      statusCode: 400,
      message: 'Malformed JSON body',
      error: 'Bad Request',
    });
    expect(
      (
        await request(server)
          .post('/api/todos')
          .send({ title: 'x'.repeat(100) })
      ).body,
    ).toEqual(TOO_LARGE);
    expect((await request(server).get('/api/whoami')).body).toEqual([{ id: 1, title: 'req_1' }]);
  });

  it('reads bodies on paths Express routes to the controller case-insensitively', async () => {
    const server = (
      await boot([
        ViewSetModule.register([{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer }], {
          imports: [storeWith([])],
        }),
      ])
    ).getHttpServer();
    const res = await request(server).post('/TODOS/').set('content-type', 'application/json').send('{');
    expect(res.body).toEqual({ statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' });
  });

  it.each(['before', 'after'])(
    'reads its bodies itself when RouterModule, imported %s it, registers Nest parsers (nestBodyLimitBytes)',
    async (position) => {
      const routerModule = RouterModule.forRoot({ options: { nestBodyLimitBytes: 50 } });
      const viewSets = ViewSetModule.register(
        [{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer }],
        { imports: [storeWith([])] },
      );
      const server = (
        await boot(position === 'before' ? [routerModule, viewSets] : [viewSets, routerModule])
      ).getHttpServer();
      const created = await request(server)
        .post('/todos')
        .send({ title: 'z'.repeat(100) });
      expect(created.status).toBe(201);
      expect(
        (await request(server).post('/todos').set('content-type', 'application/json').send('{')).body.message,
      ).toBe('Malformed JSON body');
    },
  );

  it('takes the parsed body when a JSON parser registered before init consumed it first', async () => {
    @Module({
      imports: [
        ViewSetModule.register([{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer }], {
          imports: [storeWith([])],
        }),
      ],
    })
    class AppModule {}
    const nest = await NestFactory.create<NestExpressApplication>(AppModule, { logger: false });
    nest.useBodyParser('json');
    app = await nest.init();
    const server = app.getHttpServer();
    const created = await request(server).post('/todos').send({ title: 'a' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 7, title: 'a' });
    expect((await request(server).post('/todos').set('content-type', 'text/plain').send('a')).status).toBe(415);
  });

  it("leaves requests outside the ViewSet paths to Nest's own body parser", async () => {
    const server = (
      await boot([
        ViewSetModule.register([{ prefix: '/todos', viewSet: ListCreateViewSet, serializer: todoSerializer }], {
          imports: [storeWith([])],
        }),
      ])
    ).getHttpServer();
    const res = await request(server).post('/todos/1/extra').set('content-type', 'application/json').send('{');
    // Nest's parser read this body (no ViewSet path matches) and answered with its own message.
    expect(res.status).toBe(400);
    expect(res.body.message).not.toBe('Malformed JSON body');
  });
});
