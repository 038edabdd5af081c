import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { deleteAs, getAs, seedMember, tenantRows } from '../../support/tenant-seed.js';
import { SamlTestIdp } from '../../support/federation/saml-idp.js';
import {
  bootFederationApp,
  CLIENT_SECRET,
  federatedSignIn,
  registerOidcProvider,
  seedTenant,
  startOidcTestIdp,
  type OidcTestIdp,
} from './federation.fixtures.js';

const patch = (identity: IdentityTestApp, path: string, session: { cookie: string; csrfToken: string }) =>
  request(identity.app.getHttpServer())
    .patch(path)
    .set('origin', 'http://localhost:3000')
    .set('cookie', session.cookie)
    .set('x-csrf-token', session.csrfToken);

describe('organization-managed federation providers (issue 14, Deliver 4)', () => {
  let identity: IdentityTestApp;
  let idp: OidcTestIdp;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  const providers = () => `/identity/v1/organizations/${tenant.organizationId}/federation/providers`;

  beforeAll(async () => {
    idp = await startOidcTestIdp();
  });
  afterAll(async () => {
    await idp.close();
  });
  beforeEach(async () => {
    identity = await bootFederationApp();
    tenant = await seedTenant(identity);
  });
  afterEach(async () => {
    await identity.close();
  });

  it('registers an OIDC provider after discovery: the view has the redirect URI and never the secret', async () => {
    const created = await registerOidcProvider(identity, idp, tenant);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      providerId: 'acme-idp',
      organizationId: tenant.organizationId,
      protocol: 'oidc',
      displayName: 'Acme IdP',
      state: 'enabled',
      jit: true,
      source: 'organization',
      linkedIdentities: 0,
      issuer: idp.issuer,
      hasClientSecret: true,
      redirectUri: `http://localhost:3000/identity/v1/federation/${tenant.organizationId}/acme-idp/callback`,
    });
    expect(JSON.stringify(created.body)).not.toContain(CLIENT_SECRET);
    const [row] = await tenantRows(identity).sql(
      'select client_secret_ciphertext from tessera_identity.federation_provider_registrations where provider_id = ?',
      ['acme-idp'],
    );
    expect(Buffer.from(row!['client_secret_ciphertext'] as Buffer).includes(Buffer.from(CLIENT_SECRET))).toBe(false);
    const listed = await getAs(identity, providers(), tenant.owner.session);
    expect(listed.body).toHaveLength(1);
    await federatedSignIn(identity, idp, tenant.organizationId, 'counted');
    expect((await getAs(identity, `${providers()}/acme-idp`, tenant.owner.session)).body.linkedIdentities).toBe(1);
    const audit = await tenantRows(identity).sql(
      "select action from tessera_identity.audit_events where organization_id = ? and action like 'federation_provider.%'",
      [tenant.organizationId],
    );
    expect(audit.map((event) => event['action'])).toEqual(['federation_provider.created']);
  });

  it('refuses an issuer whose discovery fails validation (400) or that cannot be reached (503)', async () => {
    const base = { providerId: 'bad', protocol: 'oidc', displayName: 'Bad', clientId: 'x' };
    const wrongIssuer = await post(identity, providers(), tenant.owner.session).send({
      ...base,
      issuer: `${idp.issuer}/not-the-issuer`,
    });
    expect([400, 503]).toContain(wrongIssuer.status);
    const unreachable = await post(identity, providers(), tenant.owner.session).send({
      ...base,
      issuer: 'http://127.0.0.1:9',
    });
    expect(unreachable.status).toBe(503);
    const insecure = await post(identity, providers(), tenant.owner.session).send({
      ...base,
      issuer: 'http://idp.example.com',
    });
    expect(insecure.status).toBe(400);
  });

  it.each([
    ['an unknown key', { extra: 1 }],
    ['a bad provider id', { providerId: 'Bad Id' }],
    ['SAML fields on OIDC', { ssoUrl: 'https://idp.example.com/sso' }],
    ['a non-boolean jit', { jit: 'yes' }],
  ])('refuses a registration with %s (400)', async (_name, over) => {
    const res = await post(identity, providers(), tenant.owner.session).send({
      providerId: 'p1',
      protocol: 'oidc',
      displayName: 'P',
      issuer: idp.issuer,
      clientId: 'c',
      ...over,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_invalid');
  });

  it('registers a SAML provider from IdP metadata: the view has the ACS URL, SP entity id and metadata URL', async () => {
    const saml = new SamlTestIdp();
    const created = await post(identity, providers(), tenant.owner.session).send({
      providerId: 'corp-saml',
      protocol: 'saml',
      displayName: 'Corp SAML',
      idpMetadataXml: saml.metadataXml(),
      signaturePolicy: 'both',
    });
    expect(created.status).toBe(201);
    const base = `http://localhost:3000/identity/v1/federation/${tenant.organizationId}/corp-saml`;
    expect(created.body).toMatchObject({
      protocol: 'saml',
      idpEntityId: saml.entityId,
      signaturePolicy: 'both',
      acsUrl: `${base}/callback`,
      spEntityId: `${base}/saml/metadata`,
      metadataUrl: `${base}/saml/metadata`,
      jit: false,
    });
    expect(created.body.idpCertificates[0].sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const metadata = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/corp-saml/saml/metadata`,
    );
    expect(metadata.status).toBe(200);
    expect(metadata.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
    expect(metadata.text).toContain(`entityID="${base}/saml/metadata"`);
    expect(metadata.text).toContain(`Location="${base}/callback"`);
  });

  it('changes only mutable fields, refuses immutable ones, and checks the version', async () => {
    await registerOidcProvider(identity, idp, tenant);
    const changed = await patch(identity, `${providers()}/acme-idp`, tenant.owner.session).send({
      displayName: 'Acme SSO',
      jit: false,
      clientSecret: null,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ displayName: 'Acme SSO', jit: false, hasClientSecret: false, version: 1 });
    for (const body of [
      { issuer: 'https://x.example.com' },
      { providerId: 'x' },
      { ssoUrl: 'https://x.example.com' },
      {},
    ]) {
      const refused = await patch(identity, `${providers()}/acme-idp`, tenant.owner.session).send(body);
      expect(refused.status).toBe(400);
    }
  });

  it('deletes a provider: its sessions end, links stay, and re-registering keeps them ended', async () => {
    await registerOidcProvider(identity, idp, tenant);
    const session = await federatedSignIn(identity, idp, tenant.organizationId, 'deleted-later');
    expect((await deleteAs(identity, `${providers()}/acme-idp`, tenant.owner.session)).status).toBe(204);
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(401);
    expect((await getAs(identity, `${providers()}/acme-idp`, tenant.owner.session)).status).toBe(404);
    const again = await registerOidcProvider(identity, idp, tenant);
    expect(again.status).toBe(201);
    expect(again.body.state).toBe('enabled');
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(401);
    const links = await tenantRows(identity).sql('select count(*) as n from tessera_identity.external_identities', []);
    expect(Number(links[0]!['n'])).toBe(1);
  });

  it('answers outsiders and viewers 404, and a stale passkey 403 step_up_required', async () => {
    await registerOidcProvider(identity, idp, tenant);
    const viewer = await seedMember(identity, tenant.organizationId, 'viewer');
    expect((await getAs(identity, providers(), viewer.session)).status).toBe(404);
    const stale = await seedMember(identity, tenant.organizationId, 'admin', {
      authenticatedAt: new Date(identity.clock.now().getTime() - 3600_000),
    });
    expect((await getAs(identity, providers(), stale.session)).status).toBe(200);
    const refused = await post(identity, `${providers()}/acme-idp/disable`, stale.session);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('step_up_required');
    expect((await getAs(identity, providers())).status).toBe(401);
  });

  it('lists only enabled providers on the public sign-in list', async () => {
    await registerOidcProvider(identity, idp, tenant);
    await registerOidcProvider(identity, idp, tenant, { providerId: 'second' });
    await post(identity, `${providers()}/second/disable`, tenant.owner.session);
    const options = await getAs(identity, `/identity/v1/federation/${tenant.organizationId}/providers`);
    expect(options.status).toBe(200);
    expect(options.body).toEqual([
      {
        providerId: 'acme-idp',
        protocol: 'oidc',
        displayName: 'Acme IdP',
        startUrl: `http://localhost:3000/identity/v1/federation/${tenant.organizationId}/acme-idp/start`,
      },
    ]);
  });
});
