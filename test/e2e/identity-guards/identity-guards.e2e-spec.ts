import { describe, it, expect, afterAll, beforeAll } from '@jest/globals';
import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Router, RouterModule, TESSERA_ERROR_MAPPER, type Exchange } from '@tessera/web';
import {
  CurrentIdentity,
  IDENTITY_ATTRIBUTES,
  identityErrorMapper,
  RequireCapability,
  RequireIdentity,
  RequireOrganizationRole,
  RequireRecentPasskey,
  requireCapability,
  requireIdentity,
  type IdentityContext,
} from '@tessera/identity';

/**
 * The Nest and radix adapters of the identity guards over HTTP. The identity context is placed
 * on the exchange by a fixture middleware standing in for credential resolution (covered with the
 * real store in the identity e2e suites); here the adapters' decisions and envelopes are the subject.
 */
const ORG = '01890000-0000-7000-8000-000000000001';
const NOW = new Date();

type Fixture = 'passkey' | 'restricted' | 'stale' | 'service' | 'outsider';

/** A service principal of ORG with direct scopes, or a user in ORG without a membership there. */
function unaffiliated(kind: 'service' | 'outsider'): IdentityContext {
  const service = kind === 'service';
  return {
    principal: {
      kind: service ? 'service' : 'user',
      id: service ? 'service-1' : 'user-2',
      assurance: service ? 'service_credential' : 'passkey',
      authenticationMethod: service ? 'service_credential' : 'passkey',
      directCapabilities: service ? ['content.read'] : [],
      roles: [],
    },
    organization: { id: ORG, state: 'active' } as IdentityContext['organization'],
    effectiveCapabilities: new Set(service ? ['content.read'] : []),
    requestId: 'req_fixture',
    requestTime: new Date(),
  };
}

/** An application resolver that grants `reports.export` to whoever it is asked about. */
const GRANTS_EXPORT = { resolve: () => ['reports.export', 'audit.read'] };

function context(kind: Fixture): IdentityContext {
  if (kind === 'service' || kind === 'outsider') return unaffiliated(kind);
  const restricted = kind === 'restricted';
  return {
    principal: {
      kind: 'user',
      id: 'user-1',
      assurance: restricted ? 'recovery' : 'passkey',
      authenticationMethod: restricted ? 'invitation' : 'passkey',
      directCapabilities: [],
      roles: [],
    },
    session: {
      authenticatedAt: new Date(NOW.getTime() - (kind === 'stale' ? 3_600_000 : 1_000)),
    } as IdentityContext['session'],
    organization: restricted ? undefined : ({ id: ORG, state: 'active' } as IdentityContext['organization']),
    membership: restricted
      ? undefined
      : ({ organizationId: ORG, state: 'active', role: 'publisher' } as IdentityContext['membership']),
    role: restricted ? undefined : 'publisher',
    effectiveCapabilities: new Set(restricted ? [] : ['organization.read', 'package.publish']),
    requestId: 'req_fixture',
    requestTime: new Date(),
  };
}

const fixture = async (exchange: Exchange, next: () => Promise<void>) => {
  const who = exchange.header('x-fixture') as Fixture | undefined;
  exchange.attributes.set(IDENTITY_ATTRIBUTES.requestId, 'req_fixture');
  if (who !== undefined) exchange.attributes.set(IDENTITY_ATTRIBUTES.context, context(who));
  if (exchange.header('x-recorded') !== undefined)
    exchange.attributes.set(IDENTITY_ATTRIBUTES.credentialFailure, 'session_expired');
  await next();
};

@Controller('host')
class HostController {
  @Get('me')
  @RequireIdentity()
  me(@CurrentIdentity() identity: IdentityContext): { id: string } {
    return { id: identity.principal.id };
  }

  @Get('publish')
  @RequireIdentity()
  @RequireCapability('package.publish')
  publish(): string {
    return 'published';
  }

  @Get('admin')
  @RequireOrganizationRole('owner', 'admin')
  admin(): string {
    return 'admin';
  }

  @Get('sensitive')
  @RequireRecentPasskey()
  sensitive(): string {
    return 'ok';
  }
}

@Module({
  imports: [
    RouterModule.forRoot({
      middleware: [{ order: 300, middleware: fixture }],
      routers: [
        {
          useValue: new Router()
            .get('/radix/me', requireIdentity(), (ex) => ex.respond({ body: 'me' }))
            .get('/radix/audit', requireCapability('audit.read'), (ex) => ex.respond({ body: 'audit' }))
            .get('/radix/export', requireCapability('reports.export', GRANTS_EXPORT), (ex) =>
              ex.respond({ body: 'exported' }),
            )
            .get('/radix/audit-granted', requireCapability('audit.read', GRANTS_EXPORT), (ex) =>
              ex.respond({ body: 'audit' }),
            ),
        },
      ],
    }),
  ],
  controllers: [HostController],
  providers: [{ provide: TESSERA_ERROR_MAPPER, useValue: identityErrorMapper }],
})
class GuardsApp {}

describe('identity guards on host routes (Nest decorators and radix middleware)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [GuardsApp] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => app.close());

  const code = (res: request.Response) => (res.body as { error: { code: string } }).error.code;

  it('@RequireIdentity admits a passkey session and refuses anonymous and restricted callers with the envelope', async () => {
    expect((await request(app.getHttpServer()).get('/host/me').set('x-fixture', 'passkey')).body).toEqual({
      id: 'user-1',
    });
    const anonymous = await request(app.getHttpServer()).get('/host/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      error: {
        code: 'authentication_required',
        message: 'Authentication is required',
        requestId: 'req_fixture',
        retryable: false,
      },
    });
    expect(anonymous.headers['cache-control']).toBe('no-store');
    expect(code(await request(app.getHttpServer()).get('/host/me').set('x-fixture', 'restricted'))).toBe(
      'authentication_required',
    );
  });

  it('answers the recorded cookie failure instead of authentication_required', async () => {
    const res = await request(app.getHttpServer()).get('/host/me').set('x-recorded', '1');
    expect(res.status).toBe(401);
    expect(code(res)).toBe('session_expired');
  });

  it('grants application capabilities and hides missing ones, roles and restricted sessions behind 404', async () => {
    expect((await request(app.getHttpServer()).get('/host/publish').set('x-fixture', 'passkey')).text).toBe(
      'published',
    );
    for (const [path, who] of [
      ['/host/admin', 'passkey'],
      ['/host/admin', 'restricted'],
      ['/host/publish', 'restricted'],
    ]) {
      const res = await request(app.getHttpServer()).get(path!).set('x-fixture', who!);
      expect(res.status).toBe(who === 'restricted' && path === '/host/publish' ? 401 : 404);
    }
  });

  it('@RequireRecentPasskey answers step_up_required for an old session', async () => {
    expect((await request(app.getHttpServer()).get('/host/sensitive').set('x-fixture', 'passkey')).text).toBe('ok');
    const stale = await request(app.getHttpServer()).get('/host/sensitive').set('x-fixture', 'stale');
    expect(stale.status).toBe(403);
    expect(code(stale)).toBe('step_up_required');
  });

  it('guards radix routes with the same decisions and envelopes', async () => {
    expect((await request(app.getHttpServer()).get('/radix/me').set('x-fixture', 'passkey')).text).toBe('me');
    expect(code(await request(app.getHttpServer()).get('/radix/me'))).toBe('authentication_required');
    const audit = await request(app.getHttpServer()).get('/radix/audit').set('x-fixture', 'passkey');
    expect(audit.status).toBe(404);
    expect(code(audit)).toBe('not_found');
  });

  it('requireCapability(cap, resolver) widens only a user with an active membership (regression: it ran for service principals and non-members)', async () => {
    const get = (path: string, who: Fixture) => request(app.getHttpServer()).get(path).set('x-fixture', who);
    expect((await get('/radix/export', 'passkey')).text).toBe('exported');
    for (const who of ['service', 'outsider', 'restricted'] as const) {
      const res = await get('/radix/export', who);
      expect([who, res.status, code(res)]).toEqual([who, 404, 'not_found']);
    }
    expect((await request(app.getHttpServer()).get('/radix/export')).status).toBe(404);
    // Identity-owned capabilities never come from a resolver, not even for a member.
    expect((await get('/radix/audit-granted', 'passkey')).status).toBe(404);
  });

  it('validates decorator arguments when applied', () => {
    expect(() => RequireCapability('Audit Read')).toThrow(
      "@RequireCapability needs a capability name like 'audit.read'",
    );
    expect(() => RequireOrganizationRole()).toThrow('@RequireOrganizationRole needs roles');
  });
});
