import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  ApiKeyAuthenticationProvider,
  CoreAuthenticationProvider,
  CoreConfigError,
  CoreModule,
  CurrentCorePrincipal,
  RequireCoreRole,
  sha256Hex,
} from '@tessera/core';
import request from 'supertest';

const ADMIN_KEY = 'key-admin-directory-00000000000001';
const OTHER_KEY = 'key-other-directory-00000000000002';

@Controller('ops')
@RequireCoreRole('admin')
class StatusController {
  @Get('status')
  status(@CurrentCorePrincipal('id') id: string): { id: string } {
    return { id };
  }
}

@Injectable()
class KeyDirectory {
  async principalFor(digest: string) {
    return digest === sha256Hex(ADMIN_KEY) ? { kind: 'api_key', id: 'from-directory', roles: ['admin'] } : null;
  }
}

@Module({ providers: [KeyDirectory], exports: [KeyDirectory] })
class KeyDirectoryModule {}

describe('CoreModule', () => {
  let app: INestApplication | undefined;
  afterEach(async () => app?.close());

  async function boot(imports: unknown[], controllers: unknown[] = [StatusController]): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({
      imports: imports as never[],
      controllers: controllers as never[],
    }).compile();
    const created = moduleRef.createNestApplication({ logger: false });
    await created.init();
    return created;
  }

  it('builds the provider from injected dependencies with forRootAsync', async () => {
    app = await boot([
      CoreModule.forRootAsync({
        imports: [KeyDirectoryModule],
        inject: [KeyDirectory],
        useFactory: (directory: KeyDirectory) => ({
          provider: new ApiKeyAuthenticationProvider({ resolve: (digest) => directory.principalFor(digest) }),
        }),
      }),
    ]);
    const ok = await request(app.getHttpServer()).get('/ops/status').set('x-api-key', ADMIN_KEY);
    expect(ok.body).toEqual({ id: 'from-directory' });
    expect((await request(app.getHttpServer()).get('/ops/status').set('x-api-key', OTHER_KEY)).status).toBe(401);
  });

  it('exposes the configured provider under the CoreAuthenticationProvider symbol', async () => {
    const provider = new ApiKeyAuthenticationProvider({
      keys: [{ digest: sha256Hex(ADMIN_KEY), principal: { kind: 'api_key', id: 'static', roles: ['admin'] } }],
    });
    app = await boot([CoreModule.forRoot({ provider })]);
    expect(app.get(CoreAuthenticationProvider)).toBe(provider);
  });

  it('serves controllers of the importing module when registered with isGlobal: false', async () => {
    const provider = new ApiKeyAuthenticationProvider({
      keys: [{ digest: sha256Hex(ADMIN_KEY), principal: { kind: 'api_key', id: 'local', roles: ['admin'] } }],
    });
    @Module({ imports: [CoreModule.forRoot({ provider, isGlobal: false })], controllers: [StatusController] })
    class OpsFeatureModule {}
    app = await boot([OpsFeatureModule], []);
    expect((await request(app.getHttpServer()).get('/ops/status').set('x-api-key', ADMIN_KEY)).body).toEqual({
      id: 'local',
    });
  });

  it('fails the boot with CoreConfigError when no provider is configured', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [CoreModule.forRoot({} as never)],
      controllers: [StatusController],
    });
    await expect(moduleRef.compile()).rejects.toThrow(CoreConfigError);
  });

  it('fails the boot when the provider does not implement the port', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [CoreModule.forRoot({ provider: { authenticate: 'yes' } as never })],
    });
    await expect(moduleRef.compile()).rejects.toThrow('must implement authenticate(exchange)');
  });
});
