import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, registerPasskey, sessionOf, stepUp } from '../../support/passkey-client.js';
import { deleteAs, getAs, seedMember, tenantRows } from '../../support/tenant-seed.js';
import {
  bootFederationApp,
  callback,
  federatedSessionOf,
  federatedSignIn,
  registerOidcProvider,
  seedTenant,
  setCookie,
  startOidcTestIdp,
  startSignIn,
  type OidcTestIdp,
} from './federation.fixtures.js';

describe('federation lifecycle: kill switch, linking and the first passkey (identity-model §5.9, identity-http §4.3)', () => {
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
    expect((await registerOidcProvider(identity, idp, tenant)).status).toBe(201);
  });
  afterEach(async () => {
    await identity.close();
  });

  const disable = () => post(identity, `${providers()}/acme-idp/disable`, tenant.owner.session);
  const enable = () => post(identity, `${providers()}/acme-idp/enable`, tenant.owner.session);

  it('disabling the provider refuses its sessions at once, and they stay refused after a re-enable', async () => {
    const session = await federatedSignIn(identity, idp, tenant.organizationId, 'kill-switch');
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(200);
    const disabled = await disable();
    expect(disabled.status).toBe(200);
    expect(disabled.body.state).toBe('disabled');
    const refused = await getAs(identity, '/identity/v1/me', session);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('session_revoked');
    expect((await disable()).body.state).toBe('disabled');
    expect((await enable()).body.state).toBe('enabled');
    expect((await getAs(identity, '/identity/v1/me', session)).status).toBe(401);
    const fresh = await federatedSignIn(identity, idp, tenant.organizationId, 'kill-switch');
    expect((await getAs(identity, '/identity/v1/me', fresh)).status).toBe(200);
    const [control] = await tenantRows(identity).sql(
      'select version, session_epoch from tessera_identity.federation_provider_controls where organization_id = ?',
      [tenant.organizationId],
    );
    expect(control).toMatchObject({ version: 2, session_epoch: 1 });
  });

  it('refuses a start while disabled (404) and a callback started before a disable/enable cycle (401)', async () => {
    idp.nextLogin('cycle');
    const started = await startSignIn(identity, idp, tenant.organizationId);
    await disable();
    const start = await getAs(identity, `/identity/v1/federation/${tenant.organizationId}/acme-idp/start`);
    expect(start.status).toBe(404);
    await enable();
    const done = await callback(identity, started.callbackPath, [started.stateCookie]);
    expect(done.status).toBe(401);
    expect(done.body.error.code).toBe('invalid_credentials');
  });

  it('links the identity to a signed-in passkey user and rotates their session into a federated one', async () => {
    const member = await seedMember(identity, tenant.organizationId, 'publisher');
    idp.nextLogin('linked-subject');
    const started = await startSignIn(identity, idp, tenant.organizationId, 'acme-idp', member.session);
    const done = await callback(identity, started.callbackPath, [started.stateCookie, member.session.cookie]);
    const federated = federatedSessionOf(done);
    const me = await getAs(identity, '/identity/v1/me', federated);
    expect(me.body.userId).toBe(member.userId);
    expect((await getAs(identity, '/identity/v1/me', member.session)).status).toBe(401);
    const [previous] = await tenantRows(identity).sql(
      'select state, rotated_to_id from tessera_identity.sessions where id = ?',
      [member.session.sessionId],
    );
    expect(previous).toMatchObject({ state: 'rotated', rotated_to_id: federated.sessionId });
    // Signing in later through the provider reaches the same user (the link is by issuer + subject).
    const again = await federatedSignIn(identity, idp, tenant.organizationId, 'linked-subject');
    expect((await getAs(identity, '/identity/v1/me', again)).body.userId).toBe(member.userId);
  });

  it('never links from a start the browser marks cross-site: that is a plain sign-in', async () => {
    const member = await seedMember(identity, tenant.organizationId, 'publisher');
    idp.nextLogin('cross-site-subject');
    const start = await getAs(
      identity,
      `/identity/v1/federation/${tenant.organizationId}/acme-idp/start`,
      member.session,
    ).set('sec-fetch-site', 'cross-site');
    expect(start.status).toBe(302);
    const state = setCookie(start, '__Host-tessera_oidc_state')!;
    const back = await idp.authorize(start.headers['location'] as string);
    const done = await callback(identity, `${back.pathname}${back.search}`, [state, member.session.cookie]);
    const federated = federatedSessionOf(done);
    expect((await getAs(identity, '/identity/v1/me', federated)).body.userId).not.toBe(member.userId);
    expect((await getAs(identity, '/identity/v1/me', member.session)).status).toBe(200);
  });

  it('rotates the caller’s federated session when the same user signs in again', async () => {
    const first = await federatedSignIn(identity, idp, tenant.organizationId, 'again-and-again');
    idp.nextLogin('again-and-again');
    const started = await startSignIn(identity, idp, tenant.organizationId, 'acme-idp', first);
    const second = federatedSessionOf(
      await callback(identity, started.callbackPath, [started.stateCookie, first.cookie]),
    );
    expect((await getAs(identity, '/identity/v1/me', first)).status).toBe(401);
    expect((await getAs(identity, '/identity/v1/me', second)).status).toBe(200);
    const [previous] = await tenantRows(identity).sql(
      'select state, rotated_to_id from tessera_identity.sessions where id = ?',
      [first.sessionId],
    );
    expect(previous).toMatchObject({ state: 'rotated', rotated_to_id: second.sessionId });
  });

  it('answers a callback for a provider disabled right now 404, accepting session_state', async () => {
    idp.nextLogin('late');
    const started = await startSignIn(identity, idp, tenant.organizationId);
    await disable();
    const done = await callback(identity, `${started.callbackPath}&session_state=abc.def`, [started.stateCookie]);
    expect(done.status).toBe(404);
    await enable();
    idp.nextLogin('late');
    const again = await startSignIn(identity, idp, tenant.organizationId);
    const ok = await callback(identity, `${again.callbackPath}&session_state=abc.def`, [again.stateCookie]);
    expect(ok.status).toBe(303);
  });

  it('audits deleting (disable + delete) and re-registering (create + enable)', async () => {
    await deleteAs(identity, `${providers()}/acme-idp`, tenant.owner.session);
    await registerOidcProvider(identity, idp, tenant);
    const actions = (
      await tenantRows(identity).sql(
        "select action from tessera_identity.audit_events where organization_id = ? and action like 'federation_provider.%' order by occurred_at, id",
        [tenant.organizationId],
      )
    ).map((event) => event['action']);
    // The test clock is frozen: events of one instant have no defined order.
    expect(actions.sort()).toEqual([
      'federation_provider.created',
      'federation_provider.created',
      'federation_provider.deleted',
      'federation_provider.disabled',
      'federation_provider.enabled',
    ]);
  });

  it('needs a recent passkey to link (403 step_up_required)', async () => {
    const stale = await seedMember(identity, tenant.organizationId, 'publisher', {
      authenticatedAt: new Date(identity.clock.now().getTime() - 3600_000),
    });
    const start = await getAs(
      identity,
      `/identity/v1/federation/${tenant.organizationId}/acme-idp/start`,
      stale.session,
    );
    expect(start.status).toBe(403);
    expect(start.body.error.code).toBe('step_up_required');
  });

  it('lets a federated session register its first passkey (FED1), and step-up-only actions wait for a passkey step-up', async () => {
    const session = await federatedSignIn(identity, idp, tenant.organizationId, 'fed1-user');
    const authenticator = new SoftwareAuthenticator();
    const registered = await registerPasskey(identity, session, authenticator);
    expect(registered.status).toBe(200);
    expect(registered.body.passkey.id).toEqual(expect.any(String));
    // A second passkey is step-up-only: the federated session is not a recent passkey.
    const second = await post(identity, '/identity/v1/passkeys/registration/start', session);
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe('step_up_required');
    const stepped = await stepUp(identity, session, authenticator);
    expect(stepped.status).toBe(200);
    const after = await post(identity, '/identity/v1/passkeys/registration/start', sessionOf(stepped));
    expect(after.status).toBe(200);
  });
});
