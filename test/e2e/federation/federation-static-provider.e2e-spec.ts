import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { testUuidV7 } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { deleteAs, getAs, seedMember, tenantRows } from '../../support/tenant-seed.js';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import {
  SUCCESS_PATH,
  callbackUrl,
  federatedSignIn,
  startOidcTestIdp,
  type OidcTestIdp,
} from './federation.fixtures.js';

const SECRET_ENV = 'TESSERA_TEST_STATIC_OIDC_SECRET';

describe('a provider declared in code (IdentityModule.forRoot({ federation: { providers } }))', () => {
  let identity: IdentityTestApp;
  let idp: OidcTestIdp;
  const organizationId = testUuidV7(new Date());
  let owner: Awaited<ReturnType<typeof seedMember>>;
  const providers = () => `/identity/v1/organizations/${organizationId}/federation/providers`;

  beforeAll(async () => {
    idp = await startOidcTestIdp();
    idp.addClient({
      clientId: 'static-rp',
      clientSecret: 'static-client-secret-0123456789',
      redirectUris: [callbackUrl(organizationId, 'corp-oidc')],
    });
    identity = await bootIdentityHostApp({
      start: new Date().toISOString(),
      extraSecrets: { [`env:${SECRET_ENV}`]: 'static-client-secret-0123456789' },
      moduleOptions: {
        federation: {
          successPath: SUCCESS_PATH,
          providers: [
            {
              organizationId,
              providerId: 'corp-oidc',
              protocol: 'oidc',
              displayName: 'Corp (code)',
              issuer: idp.issuer,
              clientId: 'static-rp',
              clientSecretRef: `env:${SECRET_ENV}`,
              jit: true,
            },
          ],
        },
      },
    });
    await tenantRows(identity).organization({ id: organizationId, at: identity.clock.now() });
    owner = await seedMember(identity, organizationId, 'owner');
  });
  afterAll(async () => {
    await identity?.close();
    await idp.close();
  });

  it('signs in through it, lists it as static, and refuses changes through the routes (409)', async () => {
    const session = await federatedSignIn(identity, idp, organizationId, 'code-declared', 'corp-oidc');
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(200);
    const listed = await getAs(identity, providers(), owner.session);
    expect(listed.body).toEqual([
      expect.objectContaining({
        providerId: 'corp-oidc',
        source: 'static',
        state: 'enabled',
        hasClientSecret: true,
        linkedIdentities: 1,
      }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('static-client-secret');
    const patched = await request(identity.app.getHttpServer())
      .patch(`${providers()}/corp-oidc`)
      .set('origin', 'http://localhost:3000')
      .set('cookie', owner.session.cookie)
      .set('x-csrf-token', owner.session.csrfToken)
      .send({ displayName: 'Renamed' });
    expect(patched.status).toBe(409);
    expect((await deleteAs(identity, `${providers()}/corp-oidc`, owner.session)).status).toBe(409);
    const shadow = await post(identity, providers(), owner.session).send({
      providerId: 'corp-oidc',
      protocol: 'oidc',
      displayName: 'Shadow',
      issuer: idp.issuer,
      clientId: 'x',
    });
    expect(shadow.status).toBe(409);
  });

  it('keeps its kill switch: disable ends its sessions', async () => {
    const session = await federatedSignIn(identity, idp, organizationId, 'code-declared-2', 'corp-oidc');
    const disabled = await post(identity, `${providers()}/corp-oidc/disable`, owner.session);
    expect(disabled.status).toBe(200);
    expect(disabled.body.state).toBe('disabled');
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(401);
    expect((await post(identity, `${providers()}/corp-oidc/enable`, owner.session)).body.state).toBe('enabled');
  });
});
