import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger, MethodNotAllowedException } from '@nestjs/common';
import { IsString } from 'class-validator';
import {
  createTestExchange,
  ErrorHandler,
  Pipeline,
  Router,
  RouteRegistrationError,
  type Exchange,
  type TestExchangeInit,
} from '@tessera/web';
import { resource } from './resource.js';
import type { Serializer } from './serializer.js';
import { BaseViewSet, type ViewSet } from './viewset.js';

interface Note {
  id: string | null;
  text: string;
  secret: string;
}

class NoteInput {
  @IsString()
  text!: string;
}

const serializer: Serializer<Note, NoteInput> = { input: NoteInput, toJson: (n) => ({ id: n.id, text: n.text }) };

class Notes extends BaseViewSet<Note> {
  readonly seen: string[] = [];
  constructor(private readonly nextId: string | null = 'a b/c') {
    super();
  }
  override async list(): Promise<Note[]> {
    return [{ id: '1', text: 'x', secret: 'hidden' }];
  }
  override async create(exchange: Exchange): Promise<Note> {
    return { id: this.nextId, text: exchange.input<NoteInput>().text, secret: 'hidden' };
  }
  override async retrieve(_exchange: Exchange, id: string): Promise<Note | null> {
    this.seen.push(id);
    return id === 'missing' ? null : { id, text: 'x', secret: 'hidden' };
  }
}

/** Runs a router the way RouterModule does: its pipeline, then the error handler on a throw. */
async function send(router: Router, init: TestExchangeInit) {
  const { exchange, response } = createTestExchange(init);
  const pipeline = new Pipeline().use(router.asMiddleware());
  let answered: boolean;
  try {
    answered = await pipeline.handle(exchange);
  } catch (error) {
    new ErrorHandler().handle(error, exchange);
    answered = true;
  }
  return { answered, ...response };
}

const post = (url: string, body: string): TestExchangeInit => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/json' },
  body,
});

describe('resource', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('registers the six routes, advertising only the implemented ones', () => {
    const router = resource(new Router(), '/notes', new Notes(), serializer);
    expect(router.routes().map((r) => `${r.method} ${r.path} ${r.advertise}`)).toEqual([
      'GET /notes true',
      'POST /notes true',
      'GET /notes/:id true',
      'PUT /notes/:id false',
      'PATCH /notes/:id false',
      'DELETE /notes/:id false',
    ]);
    expect(router.allowedMethods('/notes')).toEqual(['GET', 'HEAD', 'POST']);
    expect(router.allowedMethods('/notes/1')).toEqual(['GET', 'HEAD']);
  });

  it('returns the router for chaining', () => {
    const router = new Router();
    expect(resource(router, '/notes', new Notes(), serializer)).toBe(router);
  });

  it('raises the router conflict error when a route of the resource already exists', () => {
    const router = new Router().get('/notes/:noteId', (ex) => ex.respond({ body: 1 }));
    expect(() => resource(router, '/notes', new Notes(), serializer)).toThrow(
      new RouteRegistrationError('Duplicate route: GET /notes/:id (same shape as GET /notes/:noteId)'),
    );
  });

  it('raises the router grammar error for an invalid prefix', () => {
    expect(() => resource(new Router(), '/a b', new Notes(), serializer)).toThrow(
      "Invalid static segment 'a b' in GET /a b",
    );
  });

  it('percent-encodes the id in Location', async () => {
    const res = await send(resource(new Router(), '/notes', new Notes(), serializer), post('/notes', '{"text":"t"}'));
    expect(res.status).toBe(201);
    expect(res.headers['location']).toBe('/notes/a%20b%2Fc');
    expect(res.json).toEqual({ id: 'a b/c', text: 't' });
  });

  it('omits Location when the id is null', async () => {
    const res = await send(
      resource(new Router(), '/notes', new Notes(null), serializer),
      post('/notes', '{"text":"t"}'),
    );
    expect(res.status).toBe(201);
    expect(res.headers['location']).toBeUndefined();
  });

  it('sends toJson output only', async () => {
    const res = await send(resource(new Router(), '/notes', new Notes(), serializer), { url: '/notes' });
    expect(res.json).toEqual([{ id: '1', text: 'x' }]);
    expect(res.text).not.toContain('hidden');
  });

  it('passes the decoded id and answers 404 with the exact body for a null retrieve', async () => {
    const notes = new Notes();
    const router = resource(new Router(), '/notes', notes, serializer);
    await send(router, { url: '/notes/caf%C3%A9' });
    expect(notes.seen).toEqual(['café']);
    const res = await send(router, { url: '/notes/missing' });
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"statusCode":404,"message":"Not Found"}');
  });

  it("reads bodies under the router's bodyLimitBytes and answers 400 past it", async () => {
    const router = resource(new Router({ bodyLimitBytes: 16 }), '/notes', new Notes(), serializer);
    expect((await send(router, post('/notes', '{"text":"12345"}'))).status).toBe(201);
    const res = await send(router, post('/notes', '{"text":"123456789"}'));
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"statusCode":400,"message":"Payload Too Large","error":"Bad Request"}');
  });

  it('answers the same 405 when an implemented operation throws MethodNotAllowedException', async () => {
    class Refusing extends Notes {
      override async list(): Promise<Note[]> {
        throw new MethodNotAllowedException('not today');
      }
    }
    const res = await send(resource(new Router(), '/notes', new Refusing(), serializer), { url: '/notes' });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD, POST');
    expect(res.json).toEqual({ statusCode: 405, message: 'Method Not Allowed' });
  });

  it.each([
    ['list resolving a non-array', { list: async () => 'nope' }, { url: '/notes' }],
    ['delete resolving a non-boolean', { delete: async () => 'yes' }, { method: 'DELETE', url: '/notes/1' }],
    ['toJson throwing', { retrieve: async () => ({ id: '1' }) }, { url: '/notes/1' }],
  ] as const)('answers 500 for a programming error: %s', async (_name, operations, init) => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const throwing: Serializer<Note> = {
      input: NoteInput,
      toJson: () => {
        throw new Error('toJson failed');
      },
    };
    const viewSet = operations as unknown as ViewSet<Note>;
    const res = await send(
      resource(new Router(), '/notes', viewSet, 'retrieve' in operations ? throwing : serializer),
      init,
    );
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(logged).toHaveBeenCalled();
  });

  it('logs an unexpected error with the request id and never sends its text', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const viewSet = {
      list: async () => {
        throw new Error('db password=x');
      },
    } as unknown as ViewSet<Note>;
    const router = resource(new Router(), '/notes', viewSet, serializer);
    const { exchange, response } = createTestExchange({ url: '/notes' });
    exchange.setHeader('x-request-id', 'req_42');
    await new Pipeline()
      .use(router.asMiddleware())
      .handle(exchange)
      .catch((error: unknown) => new ErrorHandler().handle(error, exchange));
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('password');
    expect(String(logged.mock.calls[0]?.[0])).toContain('[request req_42]');
    expect(String(logged.mock.calls[0]?.[0])).toContain('db password=x');
  });
});

describe('Router.prototype.resource', () => {
  it('registers the same routes as resource(router, ...)', () => {
    const viaMethod = new Router().resource('/notes', new Notes(), serializer);
    const viaFunction = resource(new Router(), '/notes', new Notes(), serializer);
    const shape = (r: Router) => r.routes().map((route) => `${route.method} ${route.path} ${route.advertise}`);
    expect(shape(viaMethod)).toEqual(shape(viaFunction));
  });
});
