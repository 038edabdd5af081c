import { afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  Controller,
  Get,
  Injectable,
  Logger,
  NotFoundException,
  Post,
  UseGuards,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ApiKeyAuthenticationProvider,
  BasicAuthenticationProvider,
  constantTimeEqual,
  CoreAuthGuard,
  CoreModule,
  CurrentCorePrincipal,
  RequireCoreAuthentication,
  RequireCorePermission,
  RequireCoreRole,
  requireCorePrincipal,
  sha256Hex,
  type CorePrincipal,
} from '@tessera/core';
import { Router, RouterModule } from '@tessera/web';
import request from 'supertest';

const KEYS = {
  viewer: 'key-viewer-000000000000000000000001',
  operator: 'key-operator-0000000000000000000002',
  flusher: 'key-flusher-00000000000000000000003',
  admin: 'key-admin-0000000000000000000000004',
} as const;

const apiKeys = () =>
  new ApiKeyAuthenticationProvider({
    keys: [
      { digest: sha256Hex(KEYS.viewer), principal: { kind: 'api_key', id: 'viewer', permissions: ['status.read'] } },
      { digest: sha256Hex(KEYS.operator), principal: { kind: 'api_key', id: 'operator', roles: ['operator'] } },
      {
        digest: sha256Hex(KEYS.flusher),
        principal: { kind: 'api_key', id: 'flusher', roles: ['operator'], permissions: ['cache.flush'] },
      },
      {
        digest: sha256Hex(KEYS.admin),
        principal: { kind: 'api_key', id: 'admin', roles: ['admin'], attributes: { team: 'sre' } },
      },
    ],
  });

@Controller('ops')
@RequireCoreRole('operator', 'admin')
class OpsController {
  @Get('status')
  status(@CurrentCorePrincipal('id') id: string): { id: string } {
    return { id };
  }

  @Post('cache/flush')
  @RequireCorePermission('cache.flush')
  flush(): { flushed: true } {
    return { flushed: true };
  }

  @Get('audit')
  @RequireCoreRole('admin')
  audit(@CurrentCorePrincipal() principal: CorePrincipal): { auditor: string; team: unknown } {
    return { auditor: principal.id, team: principal.attributes?.['team'] };
  }
}

@Controller('me')
class MeController {
  @Get()
  @RequireCoreAuthentication()
  me(@CurrentCorePrincipal() principal: CorePrincipal): CorePrincipal {
    return principal;
  }

  @Get('unguarded')
  unguarded(@CurrentCorePrincipal() principal: CorePrincipal): CorePrincipal {
    return principal;
  }
}

/** Hides protected resources from callers lacking access: 404 instead of 403. */
@Injectable()
class HidingGuard extends CoreAuthGuard {
  protected override onForbidden(_context: ExecutionContext, _principal: CorePrincipal): never {
    throw new NotFoundException();
  }
}

@Controller('hidden')
class HiddenController {
  @Get()
  @RequireCorePermission('status.read')
  @UseGuards(HidingGuard)
  hidden(): string {
    return 'found';
  }
}

async function boot(imports: unknown[], controllers: unknown[]): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: imports as never[],
    controllers: controllers as never[],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('CoreAuthGuard and decorators on Nest controllers', () => {
  let app: INestApplication | undefined;
  afterEach(async () => app?.close());
  const get = (path: string, key?: keyof typeof KEYS) => {
    const req = request(app!.getHttpServer()).get(path);
    return key === undefined ? req : req.set('x-api-key', KEYS[key]);
  };

  it("answers 401 with Nest's Unauthorized JSON without a key, and 403 without a role", async () => {
    app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [OpsController]);
    const anonymous = await get('/ops/status');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ statusCode: 401, message: 'Unauthorized' });
    const viewer = await get('/ops/status', 'viewer');
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual({ statusCode: 403, message: 'Forbidden' });
    const operator = await get('/ops/status', 'operator');
    expect(operator.status).toBe(200);
    expect(operator.body).toEqual({ id: 'operator' });
  });

  it('applies the class role and the handler permission together', async () => {
    app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [OpsController]);
    const post = (key: keyof typeof KEYS) =>
      request(app!.getHttpServer()).post('/ops/cache/flush').set('x-api-key', KEYS[key]);
    expect((await post('operator')).status).toBe(403);
    const flusher = await post('flusher');
    expect(flusher.status).toBe(201);
    expect(flusher.body).toEqual({ flushed: true });
  });

  it('lets a handler role list override the class one', async () => {
    app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [OpsController]);
    expect((await get('/ops/audit', 'operator')).status).toBe(403);
    const admin = await get('/ops/audit', 'admin');
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual({ auditor: 'admin', team: 'sre' });
  });

  it('injects the whole principal with @CurrentCorePrincipal()', async () => {
    app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [MeController]);
    const res = await get('/me', 'viewer');
    expect(res.body).toEqual({ kind: 'api_key', id: 'viewer', roles: [], permissions: ['status.read'] });
    expect((await get('/me')).status).toBe(401);
  });

  it('fails with a generic 500, never an anonymous principal, when @CurrentCorePrincipal() lacks the guard', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [MeController]);
      const res = await get('/me/unguarded', 'admin');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
    } finally {
      logged.mockRestore();
    }
  });

  it("sets the provider's WWW-Authenticate challenge on a guard 401", async () => {
    const basic = new BasicAuthenticationProvider({
      realm: 'ops',
      verify: async ({ userId, password }) => {
        const ok = constantTimeEqual(`${userId}:${password}`, 'oncall:pager-pass');
        return ok ? { kind: 'basic', id: userId, roles: ['operator'] } : null;
      },
    });
    app = await boot([CoreModule.forRoot({ provider: basic })], [OpsController]);
    const anonymous = await get('/ops/status');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="ops", charset="UTF-8"');
    const ok = await request(app.getHttpServer()).get('/ops/status').auth('oncall', 'pager-pass');
    expect(ok.body).toEqual({ id: 'oncall' });
  });

  it('renders the same 401 bytes from a Nest guard and from a radix route', async () => {
    const provider = apiKeys();
    app = await boot(
      [
        CoreModule.forRoot({ provider }),
        RouterModule.forRoot({
          routers: [
            {
              useValue: new Router().get('/radix/status', requireCorePrincipal(provider), (ex) =>
                ex.respond({ body: 'ok' }),
              ),
            },
          ],
        }),
      ],
      [OpsController],
    );
    const nest = await get('/ops/status');
    const radix = await get('/radix/status');
    expect(nest.status).toBe(401);
    expect(radix.status).toBe(401);
    expect(radix.text).toBe(nest.text);
  });

  it('lets a guard subclass override a protected hook', async () => {
    app = await boot([CoreModule.forRoot({ provider: apiKeys() })], [HiddenController]);
    expect((await get('/hidden', 'operator')).status).toBe(404);
    expect((await get('/hidden', 'viewer')).text).toBe('found');
  });
});
