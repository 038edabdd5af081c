import { describe, it, expect, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createTestExchange } from '../test-exchange.js';
import { ErrorHandler } from '../error-handler.js';
import { Pipeline } from '../pipeline.js';
import { ResponseAlreadySentError } from '../errors.js';
import type { Exchange } from '../exchange.js';
import { Router, type RouterOptions } from './router.js';

type Route = [method: string, path: string, name: string];

/** Registers routes whose handlers answer `{ route, params }`, runs one request, reports the outcome. */
async function runWith(routes: Route[], method: string, url: string, options: RouterOptions = {}) {
  const router = new Router(options);
  for (const [m, p, name] of routes) {
    router.add(m, p, (ex: Exchange) => ex.respond({ body: { route: name, params: ex.pathParams() } }));
  }
  let fellThrough = false;
  const pipeline = new Pipeline().use(router.asMiddleware()).use(async () => {
    fellThrough = true;
  });
  const { exchange, response } = createTestExchange({ method, url });
  await pipeline.handle(exchange);
  return {
    fellThrough,
    response,
    body: response.json as { route: string; params: Record<string, string> } | undefined,
  };
}

// Every row runs against the compiled matcher (the default) and the interpreted tree (`compile: false`).
describe.each([true, false])('Router matching (web-and-viewset §9, rows R1–R27, R29), compile: %s', (compile) => {
  const run = (routes: Route[], method: string, url: string, options: RouterOptions = {}) =>
    runWith(routes, method, url, { compile, ...options });
  const usersStaticAndParam: Route[] = [
    ['GET', '/users/admin', 'static'],
    ['GET', '/users/:id', 'param'],
  ];

  it('R1 prefers the static route over a parameter', async () => {
    expect((await run(usersStaticAndParam, 'GET', '/users/admin')).body?.route).toBe('static');
  });

  it('R2 captures a parameter', async () => {
    expect((await run(usersStaticAndParam, 'GET', '/users/42')).body).toEqual({ route: 'param', params: { id: '42' } });
  });

  it('R3 never matches part of a segment', async () => {
    expect((await run([['GET', '/a/:x', 'x']], 'GET', '/ab')).fellThrough).toBe(true);
  });

  it('R4 does not match a different static segment', async () => {
    expect((await run([['GET', '/user/:id', 'x']], 'GET', '/users')).fellThrough).toBe(true);
  });

  it('R5 falls back to the parameter when a static label is only a prefix', async () => {
    const result = await run(
      [
        ['GET', '/users/list', 'static'],
        ['GET', '/users/:id', 'param'],
      ],
      'GET',
      '/users/listing',
    );
    expect(result.body).toEqual({ route: 'param', params: { id: 'listing' } });
  });

  it('R6 backtracks from a dead static branch to the parameter', async () => {
    const result = await run(
      [
        ['GET', '/users/admin/x', 'deep'],
        ['GET', '/users/:id', 'param'],
      ],
      'GET',
      '/users/admin',
    );
    expect(result.body).toEqual({ route: 'param', params: { id: 'admin' } });
  });

  const files: Route[] = [
    ['GET', '/files/:name', 'param'],
    ['GET', '/files/*', 'wild'],
  ];

  it('R7 lets a wildcard take several segments', async () => {
    expect((await run(files, 'GET', '/files/a/b')).body).toEqual({ route: 'wild', params: { '*': 'a/b' } });
  });

  it('R8 prefers a parameter over a wildcard for one segment', async () => {
    expect((await run(files, 'GET', '/files/a')).body).toEqual({ route: 'param', params: { name: 'a' } });
  });

  it('R9 prefers an exact route over a wildcard child', async () => {
    expect(
      (
        await run(
          [
            ['GET', '/docs', 'exact'],
            ['GET', '/docs/*', 'wild'],
          ],
          'GET',
          '/docs',
        )
      ).body?.route,
    ).toBe('exact');
  });

  it('R10 lets a wildcard match its parent path with an empty value', async () => {
    for (const url of ['/docs', '/docs/']) {
      expect((await run([['GET', '/docs/*', 'wild']], 'GET', url)).body).toEqual({
        route: 'wild',
        params: { '*': '' },
      });
    }
  });

  it('R11 ignores one trailing slash unless strict', async () => {
    expect((await run([['GET', '/users', 'u']], 'GET', '/users/')).body?.route).toBe('u');
    expect((await run([['GET', '/users', 'u']], 'GET', '/users/', { strictTrailingSlash: true })).fellThrough).toBe(
      true,
    );
  });

  it('R12 ignores only one trailing slash', async () => {
    expect((await run([['GET', '/users', 'u']], 'GET', '/users//')).fellThrough).toBe(true);
  });

  it('R13 never matches an empty segment with a parameter', async () => {
    expect((await run([['GET', '/a/:x/b', 'x']], 'GET', '/a//b')).fellThrough).toBe(true);
  });

  it('R14 percent-decodes parameters as UTF-8', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'GET', '/users/caf%C3%A9')).body?.params).toEqual({ id: 'café' });
  });

  it('R15 keeps an encoded slash inside one segment', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'GET', '/users/a%2Fb')).body?.params).toEqual({ id: 'a/b' });
  });

  it('R16 answers 400 for malformed percent-encoding without running the handler', async () => {
    for (const url of ['/users/%E0%A4', '/users/%zz']) {
      const result = await run([['GET', '/users/:id', 'p']], 'GET', url);
      expect(result.response.status).toBe(400);
      expect(result.response.json).toEqual({
        statusCode: 400,
        message: 'Malformed percent-encoding in path',
        error: 'Bad Request',
      });
    }
  });

  it('R17 keeps + as +', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'GET', '/users/a+b')).body?.params).toEqual({ id: 'a+b' });
  });

  it('R18 ignores the query string', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'GET', '/users/1?x=1')).body?.params).toEqual({ id: '1' });
  });

  it('R19 compares static segments case-sensitively', async () => {
    expect((await run([['GET', '/Users', 'u']], 'GET', '/users')).fellThrough).toBe(true);
  });

  it('R20 answers HEAD from the GET handler with headers and no body', async () => {
    const result = await run([['GET', '/users/:id', 'get']], 'HEAD', '/users/1');
    expect(result.response.status).toBe(200);
    expect(result.response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(result.response.headers['content-length'])).toBeGreaterThan(0);
    expect(result.response.text).toBe('');
  });

  it('R21 runs a HEAD route when there is one', async () => {
    const router = new Router({ compile });
    router.get('/users/:id', (ex) => ex.respond({ body: 'get' }));
    router.head('/users/:id', (ex) => ex.respond({ status: 204, headers: { 'x-route': 'head' } }));
    const { exchange, response } = createTestExchange({ method: 'HEAD', url: '/users/1' });
    await new Pipeline().use(router.asMiddleware()).handle(exchange);
    expect(response.status).toBe(204);
    expect(response.headers['x-route']).toBe('head');
  });

  it('R22 answers 405 with Allow for another method', async () => {
    const result = await run([['GET', '/users/:id', 'p']], 'POST', '/users/1');
    expect(result.response.status).toBe(405);
    expect(result.response.headers['allow']).toBe('GET, HEAD');
    expect(result.response.json).toEqual({ statusCode: 405, message: 'Method Not Allowed' });
  });

  it("R23 calls next() instead of 405 with methodNotAllowed: 'next'", async () => {
    expect(
      (await run([['GET', '/users/:id', 'p']], 'POST', '/users/1', { methodNotAllowed: 'next' })).fellThrough,
    ).toBe(true);
  });

  it('R24 treats OPTIONS as an ordinary method (405, no automatic answer)', async () => {
    const result = await run([['GET', '/users/:id', 'p']], 'OPTIONS', '/users/1');
    expect(result.response.status).toBe(405);
    expect(result.response.headers['allow']).toBe('GET, HEAD');
  });

  it('R25 passes methods outside the seven to next()', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'TRACE', '/users/1')).fellThrough).toBe(true);
  });

  it('R26 never answers 404 itself', async () => {
    expect((await run([['GET', '/users/:id', 'p']], 'GET', '/nope')).fellThrough).toBe(true);
  });

  it('R27 serves the root for an empty path and for /', async () => {
    for (const url of ['', '/']) expect((await run([['GET', '/', 'root']], 'GET', url)).body?.route).toBe('root');
  });

  it('R29 keeps parameter names per route', async () => {
    const routes: Route[] = [
      ['GET', '/users/:id', 'user'],
      ['GET', '/users/:uid/posts', 'posts'],
    ];
    expect((await run(routes, 'GET', '/users/7')).body).toEqual({ route: 'user', params: { id: '7' } });
    expect((await run(routes, 'GET', '/users/7/posts')).body).toEqual({ route: 'posts', params: { uid: '7' } });
  });

  it('lists every matching method in Allow in the fixed order', async () => {
    const routes: Route[] = [
      ['DELETE', '/x/:id', 'd'],
      ['PATCH', '/x/:id', 'p'],
      ['OPTIONS', '/x/:id', 'o'],
      ['PUT', '/x/:id', 'u'],
      ['GET', '/x/:id', 'g'],
    ];
    const result = await run(routes, 'POST', '/x/1');
    expect(result.response.headers['allow']).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
  });

  it('lists HEAD alone when only a HEAD route matches', async () => {
    const result = await run([['HEAD', '/ping', 'h']], 'GET', '/ping');
    expect(result.response.headers['allow']).toBe('HEAD');
  });

  it('keeps __proto__ parameters as own properties, never as the prototype', async () => {
    const router = new Router({ compile }).get('/a/:__proto__', (ex) =>
      ex.respond({ body: ex.pathParam('__proto__') }),
    );
    const match = router.lookup('GET', '/a/x');
    expect(Object.getPrototypeOf(match!.params)).toBe(Object.prototype);
    expect(Object.hasOwn(match!.params, '__proto__')).toBe(true);
  });

  it('never matches an untrusted method name that is an Object.prototype key', async () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect((await run([['GET', '/x', 'x']], method, '/x')).fellThrough).toBe(true);
    }
  });

  it('looks up raw, undecoded parameters', () => {
    const router = new Router({ compile }).get('/users/:id', () => undefined);
    expect(router.lookup('GET', '/users/caf%C3%A9')?.params).toEqual({ id: 'caf%C3%A9' });
    expect(router.lookup('GET', '/nope')).toBeNull();
  });
});

describe('Router registration errors (rows R28, R30–R33 and §3.3)', () => {
  const attempt = (register: (r: Router) => void, options?: RouterOptions) => () => register(new Router(options));

  it('R28 rejects a duplicate route', () => {
    expect(attempt((r) => r.get('/users/:id', () => undefined).get('/users/:id', () => undefined))).toThrow(
      'Duplicate route: GET /users/:id (same shape as GET /users/:id)',
    );
  });

  it('rejects the same shape with other parameter names', () => {
    expect(attempt((r) => r.get('/users/:id', () => undefined).get('/users/:name', () => undefined))).toThrow(
      'Duplicate route: GET /users/:name (same shape as GET /users/:id)',
    );
  });

  it('R30 rejects a wildcard that is not last', () => {
    expect(attempt((r) => r.get('/files/*/meta', () => undefined))).toThrow(
      'Wildcard must be the last segment: GET /files/*/meta',
    );
  });

  it('rejects a wildcard combined with other characters', () => {
    expect(attempt((r) => r.get('/files/*name', () => undefined))).toThrow(
      "Invalid wildcard segment '*name' in GET /files/*name",
    );
    expect(attempt((r) => r.get('/files/a*', () => undefined))).toThrow(
      "Invalid wildcard segment 'a*' in GET /files/a*",
    );
  });

  it('R31 treats /users and /users/ as one route unless strict', () => {
    expect(attempt((r) => r.get('/users', () => undefined).get('/users/', () => undefined))).toThrow(
      'Duplicate route: GET /users/ (same shape as GET /users)',
    );
    expect(
      attempt((r) => r.get('/users', () => undefined).get('/users/', () => undefined), { strictTrailingSlash: true }),
    ).not.toThrow();
  });

  it('R32 rejects invalid parameter names', () => {
    for (const bad of [':1x', ':', ':id-ext']) {
      expect(attempt((r) => r.get(`/a/${bad}`, () => undefined))).toThrow(
        `Invalid parameter name '${bad}' in GET /a/${bad}`,
      );
    }
  });

  it('R33 rejects invalid static segments (`%`, space, controls, `?`, `#`, a lone surrogate)', () => {
    expect(attempt((r) => r.get('/a%20b', () => undefined))).toThrow("Invalid static segment 'a%20b' in GET /a%20b");
    expect(attempt((r) => r.get('/a b', () => undefined))).toThrow("Invalid static segment 'a b' in GET /a b");
    for (const label of ['a\tb', 'a\u007fb', 'a?b', 'a#b', 'a\ud800b'])
      expect(attempt((r) => r.get(`/${label}`, () => undefined))).toThrow(`Invalid static segment '${label}'`);
  });

  it('accepts non-ASCII, quotes, backslashes and braces in static segments (issue 16 widens R33)', () => {
    for (const label of ['café', '"q"', 'a\\b', '${x}', 'a\u2028b', '😀'])
      expect(attempt((r) => r.get(`/${label}`, () => undefined))).not.toThrow();
  });

  it('rejects a repeated parameter name, an empty segment and an unsupported method', () => {
    expect(attempt((r) => r.get('/a/:id/b/:id', () => undefined))).toThrow(
      "Duplicate parameter name ':id' in GET /a/:id/b/:id",
    );
    expect(attempt((r) => r.get('/a//b', () => undefined))).toThrow('Empty segment in GET /a//b');
    expect(attempt((r) => r.add('TRACE', '/a', () => undefined))).toThrow('Unsupported method: TRACE');
  });

  it('accepts a path without a leading slash and the same shape on other methods', () => {
    const router = new Router()
      .get('users', () => undefined)
      .delete('/users/:userId', () => undefined)
      .get('/users/:id', () => undefined);
    expect(router.lookup('GET', '/users')).not.toBeNull();
    expect(router.lookup('DELETE', '/users/3')?.params).toEqual({ userId: '3' });
  });
});

describe('Route handler failures (rows R35–R37)', () => {
  async function viaHandler(handler: (ex: Exchange) => unknown) {
    const router = new Router().get('/x', handler as (ex: Exchange) => void);
    const pipeline = new Pipeline().use(router.asMiddleware());
    const { exchange, response } = createTestExchange({ url: '/x' });
    const errors = new ErrorHandler();
    await pipeline.handle(exchange).catch((error: unknown) => errors.handle(error, exchange));
    return response;
  }

  it('R35 answers 500 without the exception text', async () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const response = await viaHandler(() => {
      throw new Error('secret');
    });
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect(response.text).not.toContain('secret');
    log.mockRestore();
  });

  it('R36 answers 500 and logs a programming error when the handler does not respond', async () => {
    const log = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const response = await viaHandler(async () => undefined);
    expect(response.status).toBe(500);
    expect(String(log.mock.calls[0]?.[0])).toContain('HandlerDidNotRespondError');
    log.mockRestore();
  });

  it('R37 throws ResponseAlreadySentError on a second respond', async () => {
    let second: unknown;
    await viaHandler((ex) => {
      ex.respond({ body: 'one' });
      try {
        ex.respond({ body: 'two' });
      } catch (error) {
        second = error;
      }
    });
    expect(second).toBeInstanceOf(ResponseAlreadySentError);
  });
});
