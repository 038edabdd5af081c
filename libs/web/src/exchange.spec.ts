import { describe, it, expect } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { createTestExchange } from './test-exchange.js';
import { Pipeline } from './pipeline.js';
import { NoValidatedInputError, ResponseAlreadySentError } from './errors.js';

async function statusOf(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpException) return { status: error.getStatus(), body: error.getResponse() };
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('Exchange', () => {
  it('splits the request target into a raw path and a raw query', () => {
    const { exchange } = createTestExchange({ method: 'GET', url: '/a%20b/c?x=1&y=%20' });
    expect(exchange.method).toBe('GET');
    expect(exchange.path).toBe('/a%20b/c');
    expect(exchange.rawQuery).toBe('x=1&y=%20');
    expect(createTestExchange({ url: '/p' }).exchange.rawQuery).toBe('');
  });

  it('takes path and query of an absolute-form target and exposes its authority (RFC 9112 §3.2.2)', () => {
    const { exchange } = createTestExchange({ url: 'HTTP://Id.Example.com:8080/a/b?x=1' });
    expect([exchange.path, exchange.rawQuery, exchange.targetAuthority]).toEqual([
      '/a/b',
      'x=1',
      'id.example.com:8080',
    ]);
    const bare = createTestExchange({ url: 'http://id.example.com?x=1' }).exchange;
    expect([bare.path, bare.rawQuery]).toEqual(['/', 'x=1']);
    expect(createTestExchange({ url: '/a' }).exchange.targetAuthority).toBeUndefined();
  });

  it('reads headers case-insensitively and keeps every value in arrival order', () => {
    const { exchange } = createTestExchange({ headers: { 'X-Token': ['a', 'b'], Accept: 'text/plain' } });
    expect(exchange.header('accept')).toBe('text/plain');
    expect(exchange.headerValues('x-token')).toEqual(['a', 'b']);
    expect(exchange.header('missing')).toBeUndefined();
  });

  it('reports the direct peer and shares attributes', () => {
    const { exchange } = createTestExchange({ peer: { address: '10.0.0.9', port: 5555 } });
    expect(exchange.peer).toEqual({ address: '10.0.0.9', port: 5555 });
    exchange.attributes.set('k', 1);
    expect(exchange.attributes.get('k')).toBe(1);
  });

  it('reads the body once and returns the same buffer on a second read', async () => {
    const { exchange } = createTestExchange({ method: 'POST', body: 'hello' });
    const first = await exchange.readBody({ limitBytes: 10 });
    expect(first.toString()).toBe('hello');
    expect(await exchange.readBody({ limitBytes: 10 })).toBe(first);
  });

  it('refuses a body over the limit with 413', async () => {
    const { exchange } = createTestExchange({ method: 'POST', body: 'x'.repeat(11) });
    expect(await statusOf(exchange.readBody({ limitBytes: 10 }))).toEqual({
      status: 413,
      body: { statusCode: 413, message: 'Payload Too Large' },
    });
  });

  it('refuses a body whose stream passes the limit even without Content-Length', async () => {
    const { exchange } = createTestExchange({
      method: 'POST',
      body: 'x'.repeat(11),
      headers: { 'content-length': '1' },
    });
    expect((await statusOf(exchange.readBody({ limitBytes: 10 }))).status).toBe(413);
  });

  it('parses JSON only with application/json (415 otherwise)', async () => {
    const ok = createTestExchange({
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(await ok.exchange.readJson({ limitBytes: 100 })).toEqual({ a: 1 });
    for (const type of [undefined, 'text/plain', 'application/json; charset=latin1', 'application/jsonp']) {
      const { exchange } = createTestExchange({
        method: 'POST',
        body: '{}',
        headers: type ? { 'content-type': type } : {},
      });
      expect(await statusOf(exchange.readJson({ limitBytes: 100 }))).toEqual({
        status: 415,
        body: { statusCode: 415, message: 'Unsupported Media Type' },
      });
    }
  });

  it('answers 400 for malformed JSON and for invalid UTF-8', async () => {
    for (const body of ['{', '', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]) {
      const { exchange } = createTestExchange({
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(await statusOf(exchange.readJson({ limitBytes: 100 }))).toEqual({
        status: 400,
        body: { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' },
      });
    }
  });

  it('sends strings, bytes, JSON values and empty bodies with the right content type', () => {
    const cases: [unknown, string | undefined, string][] = [
      ['hi', 'text/plain; charset=utf-8', 'hi'],
      [Buffer.from('raw'), 'application/octet-stream', 'raw'],
      [{ a: 1 }, 'application/json; charset=utf-8', '{"a":1}'],
      [null, 'application/json; charset=utf-8', 'null'],
      [false, 'application/json; charset=utf-8', 'false'],
      [undefined, undefined, ''],
    ];
    for (const [body, type, text] of cases) {
      const { exchange, response } = createTestExchange();
      exchange.respond({ status: body === undefined ? 204 : 200, body });
      expect(response.headers['content-type']).toBe(type);
      expect(response.text).toBe(text);
    }
  });

  it('keeps a content type set by the caller and appends Set-Cookie values', () => {
    const { exchange, response } = createTestExchange();
    exchange.appendHeader('set-cookie', 'a=1').appendHeader('set-cookie', 'b=2');
    exchange.respond({ body: '<p>', headers: { 'content-type': 'text/html' } });
    expect(response.headers['content-type']).toBe('text/html');
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(exchange.responded).toBe(true);
    expect(() => exchange.respond({ body: 'again' })).toThrow(ResponseAlreadySentError);
  });

  it('has no input outside a ViewSet and decoded path params only after a match', () => {
    const { exchange } = createTestExchange();
    expect(() => exchange.input()).toThrow(NoValidatedInputError);
    expect(exchange.pathParam('id')).toBeUndefined();
    expect(exchange.pathParams()).toEqual({});
  });
});

describe('Pipeline', () => {
  it('runs middleware in order and reports whether a response was sent', async () => {
    const order: number[] = [];
    const pipeline = new Pipeline()
      .use(async (_ex, next) => {
        order.push(1);
        await next();
        order.push(4);
      })
      .use(async (_ex, next) => {
        order.push(2);
        await next();
      });
    const { exchange } = createTestExchange();
    expect(await pipeline.handle(exchange)).toBe(false);
    order.push(3);
    const answering = new Pipeline().use((ex) => ex.respond({ body: 'x' }));
    expect(await answering.handle(createTestExchange().exchange)).toBe(true);
    expect(order).toEqual([1, 2, 4, 3]);
  });

  it('rejects a middleware that calls next() twice', async () => {
    const pipeline = new Pipeline().use(async (_ex, next) => {
      await next();
      await next();
    });
    await expect(pipeline.handle(createTestExchange().exchange)).rejects.toThrow('next() called more than once');
  });
});
