import { describe, expect, it } from '@jest/globals';
import { createTestExchange, Pipeline, Router, type Exchange } from '@tessera/web';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import {
  requireCoreAccess,
  requireCorePermission,
  requireCorePrincipal,
  requireCoreRole,
} from './core-access.middleware.js';
import { CoreConfigError } from './core.errors.js';
import { createCorePrincipal, getCorePrincipal, type CorePrincipal } from './principal.js';

/** Authenticates `x-caller: <id>` against a fixed table, counting calls. */
class TableProvider implements CoreAuthenticationProvider {
  calls = 0;
  constructor(
    private readonly table: Record<string, CorePrincipal>,
    private readonly realm?: string,
  ) {}
  async authenticate(exchange: Exchange): Promise<CorePrincipal | null> {
    this.calls += 1;
    return this.table[exchange.header('x-caller') ?? ''] ?? null;
  }
  challenge(): string | undefined {
    return this.realm === undefined ? undefined : `Basic realm="${this.realm}"`;
  }
}

const reader = createCorePrincipal({ kind: 'api_key', id: 'reader', roles: ['viewer'], permissions: ['metrics.read'] });
const admin = createCorePrincipal({
  kind: 'api_key',
  id: 'admin',
  roles: ['admin'],
  permissions: ['metrics.read', 'cache.flush'],
});

async function call(router: Router, url: string, caller?: string) {
  const { exchange, response } = createTestExchange({
    url,
    headers: caller === undefined ? {} : { 'x-caller': caller },
  });
  await new Pipeline().use(router.asMiddleware()).handle(exchange);
  return { exchange, response };
}

describe('core radix-route middleware', () => {
  const provider = new TableProvider({ reader, admin }, 'ops');
  const router = new Router()
    .get('/metrics', requireCorePermission('metrics.read', provider), (ex) =>
      ex.respond({ body: { caller: getCorePrincipal(ex)?.id } }),
    )
    .post('/cache/flush', requireCorePermission(['metrics.read', 'cache.flush'], provider), (ex) =>
      ex.respond({ status: 204 }),
    )
    .get('/admin', requireCoreRole(['admin', 'owner'], provider), (ex) => ex.respond({ body: 'ok' }))
    .get('/whoami', requireCorePrincipal(provider), (ex) => ex.respond({ body: getCorePrincipal(ex) }));

  it("answers 401 with Nest's Unauthorized body and the provider challenge without a principal", async () => {
    const { response } = await call(router, '/metrics');
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ statusCode: 401, message: 'Unauthorized' });
    expect(response.headers['www-authenticate']).toBe('Basic realm="ops"');
  });

  it('answers 401 for an unknown caller', async () => {
    expect((await call(router, '/whoami', 'mallory')).response.status).toBe(401);
  });

  it("answers 403 with Nest's Forbidden body when a permission is missing", async () => {
    const { response } = await call(router, '/admin', 'reader');
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ statusCode: 403, message: 'Forbidden' });
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('requires every listed permission', async () => {
    const { exchange, response } = createTestExchange({
      method: 'POST',
      url: '/cache/flush',
      headers: { 'x-caller': 'reader' },
    });
    await new Pipeline().use(router.asMiddleware()).handle(exchange);
    expect(response.status).toBe(403);
  });

  it('runs the handler with the principal stored on the exchange when access is allowed', async () => {
    const { response } = await call(router, '/metrics', 'reader');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ caller: 'reader' });
    const whoami = await call(router, '/whoami', 'admin');
    expect(whoami.response.json).toEqual({
      kind: 'api_key',
      id: 'admin',
      roles: ['admin'],
      permissions: ['metrics.read', 'cache.flush'],
    });
  });

  it('authenticates once when wrappers are chained, reusing the stored principal', async () => {
    const counting = new TableProvider({ admin });
    const chained = new Router().get(
      '/x',
      requireCorePrincipal(counting),
      requireCoreRole('admin', counting),
      requireCorePermission('cache.flush'),
      (ex) => ex.respond({ body: 'ok' }),
    );
    const { response } = await call(chained, '/x', 'admin');
    expect(response.status).toBe(200);
    expect(counting.calls).toBe(1);
  });

  it('answers 401 without a provider when no earlier middleware stored a principal', async () => {
    const bare = new Router().get('/x', requireCorePermission('metrics.read'), (ex) => ex.respond({ body: 'ok' }));
    const { response } = await call(bare, '/x', 'admin');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('fails the request instead of opening it when the provider throws', async () => {
    const failing: CoreAuthenticationProvider = {
      authenticate: async () => {
        throw new Error('database down');
      },
    };
    const guarded = new Router().get('/x', requireCorePrincipal(failing), (ex) => ex.respond({ body: 'open' }));
    const { exchange } = createTestExchange({ url: '/x' });
    await expect(new Pipeline().use(guarded.asMiddleware()).handle(exchange)).rejects.toThrow('database down');
    expect(exchange.responded).toBe(false);
  });

  it('validates its arguments when the route is declared', () => {
    expect(() => requireCorePermission([], provider)).toThrow(CoreConfigError);
    expect(() => requireCoreRole('', provider)).toThrow(CoreConfigError);
    expect(() => requireCoreAccess({ roles: ['a b'] }, provider)).toThrow(CoreConfigError);
    expect(() => requireCorePermission('metrics.read', {} as CoreAuthenticationProvider)).toThrow(CoreConfigError);
  });
});
