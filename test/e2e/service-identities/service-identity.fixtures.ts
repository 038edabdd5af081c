import { Controller, Get, Post } from '@nestjs/common';
import request from 'supertest';
import type { Response } from 'supertest';
import {
  CurrentIdentity,
  RequireCapability,
  RequireIdentity,
  RequireOrganization,
  type CapabilityResolver,
  type IdentityConfig,
  type IdentityContext,
} from '@tessera/identity';
import { seedPasskeySession, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import { passkeyOwner, stepUp, type TestSession } from '../../support/passkey-client.js';
import { kernelOf, organizationOf, rowsOf } from '../passkeys/passkey-fixtures.js';

export { kernelOf, rowsOf };

/** The service-credential allowlist of the test app: `reports.export` is allowlisted but no role holds it. */
export const SERVICE_ALLOWLIST = ['package.publish', 'content.read', 'reports.export'];

/** Application grants: managers publish and read content, publishers only publish. */
export const GRANTS: CapabilityResolver = {
  resolve: ({ role }) =>
    role === 'owner' || role === 'admin'
      ? ['package.publish', 'content.read']
      : role === 'publisher'
        ? ['package.publish']
        : [],
};

/** The organization of a host route `/host/orgs/{orgId}/...`. */
export const hostOrganization = (path: string): string | undefined => /^\/host\/orgs\/([^/]+)\//.exec(path)?.[1];

/** Host routes guarded with the identity decorators, reachable by sessions and service bearers. */
@Controller('host')
export class HostPackagesController {
  @Post('orgs/:orgId/packages')
  @RequireOrganization()
  @RequireCapability('package.publish')
  publish(@CurrentIdentity() identity: IdentityContext) {
    return {
      kind: identity.principal.kind,
      id: identity.principal.id,
      assurance: identity.principal.assurance,
      organizationId: identity.organization?.id,
    };
  }

  @Get('orgs/:orgId/reports')
  @RequireCapability('reports.export')
  reports(): { ok: true } {
    return { ok: true };
  }

  @Get('orgs/:orgId/scope')
  @RequireOrganization()
  scoped(@CurrentIdentity() identity: IdentityContext) {
    return { organizationId: identity.organization?.id };
  }

  /** A route no selector maps to an organization. */
  @Get('scope')
  @RequireOrganization()
  unscoped(@CurrentIdentity() identity: IdentityContext) {
    return { organizationId: identity.organization?.id };
  }

  @Get('whoami')
  @RequireIdentity()
  @RequireCapability('content.read')
  whoami(@CurrentIdentity() identity: IdentityContext) {
    return { kind: identity.principal.kind, capabilities: [...identity.effectiveCapabilities].sort() };
  }
}

/** The test app of this scenario: the allowlist, the grants, the host controller and its selector. */
export function bootServiceApp(overrides: Partial<IdentityConfig> = {}): Promise<IdentityTestApp> {
  return bootIdentityHostApp({
    overrides: { capabilities: { device: [], service: SERVICE_ALLOWLIST }, ...overrides },
    controllers: [HostPackagesController],
    moduleOptions: { capabilityResolvers: [GRANTS], organizationSelector: hostOrganization },
  });
}

/** A real passkey owner (bootstrap, passkey, sign-in) and the organization bootstrap created. */
export interface Owner {
  readonly session: TestSession;
  readonly organizationId: string;
  /** Step-up again (STEP holds for five minutes after a passkey). */
  refresh(): Promise<void>;
}

/** Bootstraps the owner of the app's first organization with a real passkey session. */
export async function bootstrapOwner(identity: IdentityTestApp): Promise<Owner> {
  const owner = await passkeyOwner(identity);
  let session = owner.session;
  const organizationId = await organizationOf(identity, session.userId);
  return {
    get session() {
      return session;
    },
    organizationId,
    async refresh() {
      const res = await stepUp(identity, session, owner.authenticator);
      if (res.status !== 200) throw new Error(`step-up failed: ${res.status} ${res.text}`);
      session = {
        userId: res.body.userId,
        sessionId: res.body.sessionId,
        csrfToken: res.body.csrfToken,
        cookie: cookieOf(res),
      };
    },
  };
}

function cookieOf(res: Response): string {
  const cookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  const cookie = cookies.find(
    (c) => c.startsWith('__Host-tessera_session=') && !c.startsWith('__Host-tessera_session=;'),
  );
  if (cookie === undefined) throw new Error('no session cookie');
  return cookie.split(';')[0]!;
}

/** A seeded member of `organizationId` with a recent passkey session (STEP holds). */
export async function seedMember(
  identity: IdentityTestApp,
  organizationId: string,
  role: 'owner' | 'admin' | 'publisher' | 'viewer',
): Promise<TestSession> {
  const userId = await rowsOf(identity).user({ at: identity.clock.now() });
  await rowsOf(identity).membership(organizationId, userId, { role, at: identity.clock.now() });
  return seedPasskeySession(identity, userId);
}

/** `/identity/v1/organizations/{orgId}/service-identities[/…]`. */
export function servicePath(organizationId: string, ...rest: string[]): string {
  return ['/identity/v1/organizations', organizationId, 'service-identities', ...rest].join('/');
}

/** A GET with the session cookie. */
export function read(identity: IdentityTestApp, path: string, session: TestSession) {
  return request(identity.app.getHttpServer()).get(path).set('cookie', session.cookie);
}

/** An unsafe request with the session cookie, `Origin` and CSRF token. */
export function send(identity: IdentityTestApp, method: 'post' | 'delete', path: string, session: TestSession) {
  const agent = request(identity.app.getHttpServer());
  return agent[method](path)
    .set('cookie', session.cookie)
    .set('origin', TEST_ORIGIN)
    .set('x-csrf-token', session.csrfToken);
}

/** A request carrying `Authorization: Bearer <token>` only. */
export function bearer(identity: IdentityTestApp, method: 'get' | 'post', path: string, token: string) {
  return request(identity.app.getHttpServer())[method](path).set('authorization', `Bearer ${token}`);
}

/** Route 40 as `session`; throws unless 201. */
export async function createServiceIdentity(
  identity: IdentityTestApp,
  organizationId: string,
  session: TestSession,
  body: Record<string, unknown> = { name: 'ci', capabilities: ['package.publish'] },
): Promise<{ identityId: string; credentialId: string; token: string; body: Record<string, unknown> }> {
  const res = await send(identity, 'post', servicePath(organizationId), session).send(body);
  if (res.status !== 201) throw new Error(`service identity creation failed: ${res.status} ${res.text}`);
  return {
    identityId: res.body.identity.id,
    credentialId: res.body.credential.id,
    token: res.body.token,
    body: res.body,
  };
}

/** The error code of an identity envelope. */
export function codeOf(res: Response): string | undefined {
  return (res.body as { error?: { code?: string } }).error?.code;
}

/** The identity envelope without its request id (tenancy failures must be byte-identical apart from it). */
export function envelopeOf(res: Response): unknown {
  const { requestId: _requestId, ...rest } = (res.body as { error: { requestId?: string } }).error;
  return { status: res.status, error: rest };
}
