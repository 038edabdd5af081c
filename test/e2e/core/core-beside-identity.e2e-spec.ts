import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import request from 'supertest';
import {
  BasicAuthenticationProvider,
  constantTimeEqual,
  CoreModule,
  CurrentCorePrincipal,
  RequireCoreRole,
} from '@tessera/core';
import { CurrentIdentity, RequireIdentity, type IdentityContext } from '@tessera/identity';
import { seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';

@Controller('ops')
class OpsController {
  @Get('status')
  @RequireCoreRole('operator')
  status(@CurrentCorePrincipal('id') id: string): { id: string } {
    return { id };
  }
}

@Controller('host')
class HostController {
  @Get('account')
  @RequireIdentity()
  account(@CurrentIdentity() identity: IdentityContext): { userId: string } {
    return { userId: identity.principal.id };
  }
}

const basic = new BasicAuthenticationProvider({
  realm: 'ops',
  verify: async ({ userId, password }) =>
    constantTimeEqual(`${userId}:${password}`, 'oncall:pager-pass')
      ? { kind: 'basic', id: userId, roles: ['operator'] }
      : null,
});

function errorCode(res: request.Response): string | undefined {
  return (res.body as { error?: { code?: string } }).error?.code;
}

describe('@tessera/core Basic authentication beside IdentityModule in one app (issue 11 item 15)', () => {
  let identity: IdentityTestApp;
  const http = () => request(identity.app.getHttpServer());

  beforeAll(async () => {
    identity = await bootIdentityHostApp({
      controllers: [OpsController, HostController],
      imports: [CoreModule.forRoot({ provider: basic })],
    });
  });
  afterAll(async () => {
    await identity?.close();
  });

  it('lets the core Basic provider authenticate a host route (identity no longer refuses every Authorization header)', async () => {
    const ok = await http().get('/ops/status').auth('oncall', 'pager-pass');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: 'oncall' });
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
  });

  it('leaves a wrong Basic password and a missing header to the host, in its own format', async () => {
    for (const res of [await http().get('/ops/status').auth('oncall', 'wrong'), await http().get('/ops/status')]) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="ops", charset="UTF-8"');
      expect(errorCode(res)).toBeUndefined();
    }
  });

  it('treats a Basic request as anonymous for identity on host routes', async () => {
    const res = await http().get('/host/account').auth('oncall', 'pager-pass');
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('authentication_required');
  });

  it('still claims Bearer credentials on host routes (a bad bearer is invalid_credentials)', async () => {
    const res = await http().get('/ops/status').set('authorization', 'Bearer not-a-token');
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('invalid_credentials');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('keeps the identity contract on identity-owned paths: any other scheme is invalid_credentials', async () => {
    const res = await http().get('/identity/v1/me').auth('oncall', 'pager-pass');
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('invalid_credentials');
  });

  it('serves identity sessions in the same app, on identity and host routes', async () => {
    const session = await seedPasskeySession(identity);
    const me = await http().get('/identity/v1/me').set('cookie', session.cookie);
    expect(me.status).toBe(200);
    const account = await http().get('/host/account').set('cookie', session.cookie);
    expect(account.status).toBe(200);
    expect(account.body).toEqual({ userId: session.userId });
  });

  it('lets a session cookie and a Basic header meet on a host route: each module sees its own credential', async () => {
    const session = await seedPasskeySession(identity);
    const ops = await http().get('/ops/status').set('cookie', session.cookie).auth('oncall', 'pager-pass');
    expect(ops.status).toBe(200);
    expect(ops.body).toEqual({ id: 'oncall' });
    const account = await http().get('/host/account').set('cookie', session.cookie).auth('oncall', 'pager-pass');
    expect(account.body).toEqual({ userId: session.userId });
  });
});
