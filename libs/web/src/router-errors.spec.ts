import { describe, expect, it } from '@jest/globals';
import { Router } from './router/router.js';
import { attachRouterErrorRenderers, respondRouterError, type RouterErrorRenderer } from './router-errors.js';
import { createTestExchange } from './test-exchange.js';

const renderer = (pathPrefix: string): RouterErrorRenderer => ({
  pathPrefix,
  render: (error, exchange) => exchange.respond({ status: error.status, body: { by: pathPrefix, kind: error.kind } }),
});

describe('router-level errors per path prefix', () => {
  const router = new Router().get('/api/v1/items/:id', (ex) => ex.respond({ body: ex.pathParam('id') }));

  async function dispatch(method: string, url: string, renderers: RouterErrorRenderer[]) {
    const { exchange, response } = createTestExchange({ method, url });
    attachRouterErrorRenderers(exchange, renderers);
    await router.asMiddleware()(exchange, async () => undefined);
    return response;
  }

  it('renders Nest format with Allow when no renderer claims the path (web-and-viewset §5.2)', async () => {
    const res = await dispatch('POST', '/api/v1/items/1', [renderer('/other/')]);
    expect([res.status, res.json, res.headers['allow']]).toEqual([
      405,
      { statusCode: 405, message: 'Method Not Allowed' },
      'GET, HEAD',
    ]);
    const malformed = await dispatch('GET', '/api/v1/items/%ZZ', []);
    expect(malformed.json).toEqual({
      statusCode: 400,
      message: 'Malformed percent-encoding in path',
      error: 'Bad Request',
    });
  });

  it("hands the path's router errors to the renderer of its prefix, keeping Allow", async () => {
    const res = await dispatch('DELETE', '/api/v1/items/1', [renderer('/api/v1/'), renderer('/api/')]);
    expect([res.status, res.json, res.headers['allow']]).toEqual([
      405,
      { by: '/api/v1/', kind: 'method_not_allowed' },
      'GET, HEAD',
    ]);
    expect((await dispatch('GET', '/api/v1/items/%E0%A4', [renderer('/api/')])).json).toEqual({
      by: '/api/',
      kind: 'malformed_path',
    });
  });

  it('answers in Nest format on an exchange no RouterHost prepared', () => {
    const { exchange, response } = createTestExchange({ url: '/api/x' });
    respondRouterError(exchange, { kind: 'malformed_path', status: 400 });
    expect([response.status, response.json]).toEqual([
      400,
      { statusCode: 400, message: 'Malformed percent-encoding in path', error: 'Bad Request' },
    ]);
  });
});
