import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Injectable,
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
import request from 'supertest';
import { RouterModule, type Exchange } from '@tessera/web';
import { BaseViewSet, ViewSetConfigError, ViewSetModule } from '@tessera/viewset';
import {
  FullViewSet,
  ListCreateViewSet,
  TodoStore,
  todoSerializer,
  type Todo,
} from '../../support/viewset-fixtures.js';
import { seeded, TOO_LARGE } from './viewset-contract.rows.js';

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
