import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase, type TestDatabase } from '@tessera/database';
import { issueSession } from '@tessera/identity';
import { IdentityTestRows, SoftwareAuthenticator } from '@tessera/identity-testing';
import { AppModule } from '../../../apps/demo/src/app.module.js';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { passkeyOwner, post, type TestSession } from '../../support/passkey-client.js';
import { identityKernelOf } from '../../support/identity-kernel.js';

const BOOTSTRAP_SECRET = 'demo-bootstrap-secret-for-tests';

/**
 * The demo's application grant (issue 5): `POST /orgs/:organizationId/packages` needs
 * `package.publish`, which the demo's CapabilityResolver grants publishers (and admins, owners) of
 * the organization in the path, and which a service credential can carry as a scope.
 */
describe('demo packages: an application grant for user sessions and service credentials', () => {
  let database: TestDatabase;
  let app: INestApplication;
  let owner: TestSession;
  let organizationId: string;
  let otherOrganizationId: string;
  let authenticator: SoftwareAuthenticator;
  const http = () => request(app.getHttpServer());

  /** A passkey session for a seeded member of `organizationId` with `role`. */
  async function member(role: 'publisher' | 'viewer'): Promise<TestSession> {
    const kernel = identityKernelOf(app);
    const rows = new IdentityTestRows(app.get(MikroORM).em);
    const userId = await rows.user({ at: new Date() });
    await rows.membership(organizationId, userId, { role, at: new Date() });
    const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
      userId,
      assurance: 'passkey',
      authenticationMethod: 'passkey',
      authenticatedAt: new Date(),
      lifetimes: { idleSeconds: 3600, absoluteSeconds: 3600 },
    });
    await rows.session(issued.session);
    return {
      userId,
      sessionId: issued.session.id,
      cookie: `__Host-tessera_session=${issued.cookieToken}`,
      csrfToken: issued.csrfToken,
    };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.forRoot({ databaseUrl: database.url, env: { TESSERA_BOOTSTRAP_SECRET: BOOTSTRAP_SECRET } })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const identity = { app, bootstrapSecret: BOOTSTRAP_SECRET } as unknown as IdentityTestApp;
    const signedIn = await passkeyOwner(identity);
    owner = signedIn.session;
    authenticator = signedIn.authenticator;
    const orgs = await http().get('/identity/v1/organizations').set('cookie', owner.cookie);
    organizationId = orgs.body[0].id;
    otherOrganizationId = await new IdentityTestRows(app.get(MikroORM).em).organization({ at: new Date() });
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('lets the owner publish with a session cookie and CSRF, and lists the package', async () => {
    const created = await post({ app } as unknown as IdentityTestApp, `/orgs/${organizationId}/packages`, owner).send({
      name: 'left-pad',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organizationId, name: 'left-pad', publishedBy: `user:${owner.userId}` });
    const listed = await http().get(`/orgs/${organizationId}/packages`).set('cookie', owner.cookie);
    expect(listed.status).toBe(200);
    expect(listed.body.map((p: { name: string }) => p.name)).toEqual(['left-pad']);
  });

  it('needs CSRF for cookie-authenticated publishing', async () => {
    const res = await http()
      .post(`/orgs/${organizationId}/packages`)
      .set('cookie', owner.cookie)
      .set('origin', TEST_ORIGIN)
      .send({ name: 'no-csrf' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('csrf_invalid');
  });

  it('grants publishers, refuses viewers with not_found, and lets viewers read', async () => {
    const publisher = await member('publisher');
    const viewer = await member('viewer');
    const app_ = { app } as unknown as IdentityTestApp;
    expect(
      (await post(app_, `/orgs/${organizationId}/packages`, publisher).send({ name: 'by-publisher' })).status,
    ).toBe(201);
    const refused = await post(app_, `/orgs/${organizationId}/packages`, viewer).send({ name: 'by-viewer' });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect((await http().get(`/orgs/${organizationId}/packages`).set('cookie', viewer.cookie)).status).toBe(200);
  });

  it('refuses anonymous callers and members of other organizations', async () => {
    const anonymous = await http().get(`/orgs/${organizationId}/packages`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('authentication_required');
    const foreign = await http().get(`/orgs/${otherOrganizationId}/packages`).set('cookie', owner.cookie);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });

  it('lets a service credential with package.publish publish over a bearer, only in its organization', async () => {
    const app_ = { app } as unknown as IdentityTestApp;
    // Creating a service identity needs a recent passkey: step up first.
    const start = await post(app_, '/identity/v1/passkeys/step-up/start', owner);
    const assertion = authenticator.getAssertion(start.body.publicKey, { origin: TEST_ORIGIN });
    const ceremony = (start.headers['set-cookie'] as unknown as string[])
      .find((c) => c.startsWith('__Host-tessera_ceremony='))!
      .split(';')[0]!;
    const stepped = await post(app_, '/identity/v1/passkeys/step-up/finish', owner, [ceremony]).send({
      ceremonyId: start.body.ceremonyId,
      credential: assertion,
    });
    expect(stepped.status).toBe(200);
    const cookie = (stepped.headers['set-cookie'] as unknown as string[])
      .find((c) => c.startsWith('__Host-tessera_session='))!
      .split(';')[0]!;
    const stepUp: TestSession = { ...owner, cookie, csrfToken: stepped.body.csrfToken };
    const created = await post(app_, `/identity/v1/organizations/${organizationId}/service-identities`, stepUp).send({
      name: 'ci-publisher',
      capabilities: ['package.publish'],
    });
    expect(created.status).toBe(201);
    const bearer = `Bearer ${created.body.token as string}`;
    const published = await http()
      .post(`/orgs/${organizationId}/packages`)
      .set('authorization', bearer)
      .send({ name: 'from-ci' });
    expect(published.status).toBe(201);
    expect(published.body.publishedBy).toBe(`service:${created.body.identity.id as string}`);
    const elsewhere = await http()
      .post(`/orgs/${otherOrganizationId}/packages`)
      .set('authorization', bearer)
      .send({ name: 'from-ci' });
    expect(elsewhere.status).toBe(404);
  });
});
