import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { Test } from '@nestjs/testing';
import {
  BasicAuthenticationProvider,
  constantTimeEqual,
  coreEntities,
  coreMigrations,
  CoreModule,
  CoreSessionStore,
  CurrentCorePrincipal,
  getCorePrincipal,
  getCoreSession,
  MikroOrmCoreSessionStore,
  RequireCoreRole,
  requireCorePrincipal,
  requireCoreRole,
  SessionCookieAuthenticationProvider,
  sha256Hex,
} from '@tessera/core';
import { createTestDatabase, DatabaseModule, type TestDatabase } from '@tessera/database';
import { Router, RouterModule } from '@tessera/web';
import request from 'supertest';

let now = new Date('2031-06-01T08:00:00.000Z');
const clock = () => now;
const SESSION_TTL = 900;

const pager = new BasicAuthenticationProvider({
  realm: 'ops',
  verify: async ({ userId, password }) => {
    const userOk = constantTimeEqual(userId, 'oncall');
    const passwordOk = constantTimeEqual(password, 'pager-pass');
    return userOk && passwordOk ? { kind: 'basic', id: userId, roles: ['operator'] } : null;
  },
});

@Module({
  providers: [
    {
      provide: CoreSessionStore,
      useFactory: (em: EntityManager) => new MikroOrmCoreSessionStore(em, { clock }),
      inject: [EntityManager],
    },
    {
      provide: SessionCookieAuthenticationProvider,
      useFactory: (store: CoreSessionStore) => new SessionCookieAuthenticationProvider({ store, clock }),
      inject: [CoreSessionStore],
    },
  ],
  exports: [CoreSessionStore, SessionCookieAuthenticationProvider],
})
class OpsSessionsModule {}

@Controller('ops')
@RequireCoreRole('operator')
class DashboardController {
  @Get('dashboard')
  dashboard(@CurrentCorePrincipal('id') id: string): { operator: string } {
    return { operator: id };
  }
}

function sessionRoutes(store: CoreSessionStore, cookies: SessionCookieAuthenticationProvider): Router {
  return new Router()
    .post('/ops/login', requireCoreRole('operator', pager), async (ex) => {
      const grant = await store.create(getCorePrincipal(ex)!, SESSION_TTL);
      ex.respond({ status: 204, headers: { 'set-cookie': cookies.sessionCookie(grant) } });
    })
    .post('/ops/logout', requireCorePrincipal(cookies), async (ex) => {
      await store.revoke(getCoreSession(ex)!.id);
      ex.respond({ status: 204, headers: { 'set-cookie': cookies.clearingCookie() } });
    });
}

describe(`core session cookies over HTTP (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let testDb: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [
        DatabaseModule.forRoot({
          url: testDb.url,
          entities: [...coreEntities],
          migrations: { list: [...coreMigrations] },
        }),
        CoreModule.forRootAsync({
          imports: [OpsSessionsModule],
          inject: [SessionCookieAuthenticationProvider],
          useFactory: (cookies: SessionCookieAuthenticationProvider) => ({ provider: cookies }),
        }),
        RouterModule.forRoot({
          imports: [OpsSessionsModule],
          routers: [{ inject: [CoreSessionStore, SessionCookieAuthenticationProvider], useFactory: sessionRoutes }],
        }),
      ],
      controllers: [DashboardController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await testDb?.close();
  });

  async function login(): Promise<{ cookie: string; token: string }> {
    const res = await request(app.getHttpServer()).post('/ops/login').auth('oncall', 'pager-pass');
    expect(res.status).toBe(204);
    const setCookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
    expect(setCookie).toMatch(
      /^__Host-tessera_core_session=tcs_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=900; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = setCookie.split(';')[0]!;
    return { cookie, token: cookie.slice(cookie.indexOf('=') + 1) };
  }

  const dashboard = (cookie?: string) => {
    const req = request(app.getHttpServer()).get('/ops/dashboard');
    return cookie === undefined ? req : req.set('cookie', cookie);
  };

  it('refuses the login route without valid Basic credentials', async () => {
    const res = await request(app.getHttpServer()).post('/ops/login').auth('oncall', 'wrong');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="ops", charset="UTF-8"');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('serves a guarded Nest controller to the session cookie a Basic login issued', async () => {
    const { cookie } = await login();
    const res = await dashboard(cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ operator: 'oncall' });
    expect((await dashboard()).status).toBe(401);
  });

  it('keeps only the digest of the issued token in the database', async () => {
    const { token } = await login();
    const em = app.get(EntityManager).fork();
    const rows = await em
      .getConnection()
      .execute<{ token_digest: string; row_text: string }[]>(
        'select token_digest, t::text as row_text from tessera_core.core_session t where token_digest = ?',
        [sha256Hex(token)],
      );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row_text).not.toContain(token);
  });

  it('answers 401 once the session has expired on the store clock', async () => {
    const { cookie } = await login();
    now = new Date(now.getTime() + (SESSION_TTL - 1) * 1000);
    expect((await dashboard(cookie)).status).toBe(200);
    now = new Date(now.getTime() + 1000);
    expect((await dashboard(cookie)).status).toBe(401);
  });

  it('revokes the session on logout, clears the cookie, and refuses its replay', async () => {
    const { cookie } = await login();
    const logout = await request(app.getHttpServer()).post('/ops/logout').set('cookie', cookie);
    expect(logout.status).toBe(204);
    expect((logout.headers['set-cookie'] as unknown as string[])[0]).toBe(
      '__Host-tessera_core_session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict',
    );
    expect((await dashboard(cookie)).status).toBe(401);
    expect((await request(app.getHttpServer()).post('/ops/logout').set('cookie', cookie)).status).toBe(401);
  });

  it('never accepts a core session token from the identity session cookie', async () => {
    const { token } = await login();
    expect((await dashboard(`__Host-tessera_session=${token}`)).status).toBe(401);
  });

  it('refuses an ambiguous request carrying the session cookie twice', async () => {
    const first = await login();
    const second = await login();
    expect((await dashboard(`${first.cookie}; ${second.cookie}`)).status).toBe(401);
  });
});
