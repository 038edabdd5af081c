import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { getAs, tenantRows } from '../../support/tenant-seed.js';
import { SamlTestIdp, toFormValue, type SamlTestResponseOptions } from '../../support/federation/saml-idp.js';
import { applyXsw, XSW_TARGET, type XswShape } from '../../support/federation/saml-xsw.js';
import { bootFederationApp, federatedSessionOf, seedTenant, setCookie, setCookieLine } from './federation.fixtures.js';

const SHAPES: XswShape[] = ['XSW1', 'XSW2', 'XSW3', 'XSW4', 'XSW5', 'XSW6', 'XSW7', 'XSW8'];

describe('SAML federated sign-in over HTTP with a signing test IdP (identity-http §6, identity-model §11.2)', () => {
  let identity: IdentityTestApp;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  const idp = new SamlTestIdp();

  // One app and one provider for the whole table: every test makes its own start (fresh state,
  // request id and assertion id), so nothing carries over between tests.
  beforeAll(async () => {
    identity = await bootFederationApp();
    tenant = await seedTenant(identity);
    const created = await post(
      identity,
      `/identity/v1/organizations/${tenant.organizationId}/federation/providers`,
      tenant.owner.session,
    ).send({
      providerId: 'corp',
      protocol: 'saml',
      displayName: 'Corp',
      idpMetadataXml: idp.metadataXml(),
      signaturePolicy: 'assertion',
      jit: true,
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await identity?.close();
  });

  /** GET start: the AuthnRequest redirect, with its SameSite=None state cookie. */
  async function start() {
    const res = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/corp/start`,
    );
    expect(res.status).toBe(302);
    const location = res.headers['location'] as string;
    expect(location.startsWith(`${idp.ssoUrl}?`)).toBe(true);
    return { location, cookie: setCookie(res, '__Host-tessera_saml_state')!, res };
  }

  function postForm(form: Record<string, string>, cookie?: string) {
    const req = request(identity.app.getHttpServer())
      .post(`/identity/v1/federation/${tenant.organizationId}/corp/callback`)
      .type('form');
    return (cookie === undefined ? req : req.set('cookie', cookie)).send(form);
  }

  /** start → the IdP's answer (shaped by `over`) → POST; returns the callback response. */
  async function signIn(over: Partial<SamlTestResponseOptions> = {}) {
    const started = await start();
    const answer = await idp.answer(started.location, { now: identity.clock.now(), ...over });
    return { started, answer, res: await postForm(answer.form, started.cookie) };
  }

  it('starts with a SameSite=None state cookie and an AuthnRequest bound to the ACS URL', async () => {
    const started = await start();
    expect(setCookieLine(started.res, '__Host-tessera_saml_state')).toMatch(
      /^__Host-tessera_saml_state=[A-Za-z0-9_-]{43}; Max-Age=300; Path=\/; Secure; HttpOnly; SameSite=None$/,
    );
    const decoded = await idp.decodeRequest(started.location);
    expect(decoded.acsUrl).toBe(`http://localhost:3000/identity/v1/federation/${tenant.organizationId}/corp/callback`);
    expect(decoded.relayState).toBe(started.cookie.split('=')[1]);
  });

  it('signs in with JIT, then refuses the same response replayed (401)', async () => {
    const { started, answer, res } = await signIn({ nameId: 'bob@corp.test' });
    expect(res.status).toBe(303);
    const session = federatedSessionOf(res);
    const me = await getAs(identity, '/identity/v1/me', session);
    expect(me.status).toBe(200);
    expect(me.body.assuranceLevel).toBe('session');
    const [user] = await tenantRows(identity).sql(
      `select u.primary_email, m.role, s.authentication_method from tessera_identity.sessions s
         join tessera_identity.users u on u.id = s.user_id join tessera_identity.memberships m on m.user_id = u.id
        where s.id = ?`,
      [session.sessionId],
    );
    // The NameID looks like an email, and still: a JIT user never gets a primary email.
    expect(user).toMatchObject({ primary_email: null, role: 'viewer', authentication_method: 'saml' });
    const replayed = await postForm(answer.form, started.cookie);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe('invalid_credentials');
  });

  it('refuses a replay of a used assertion under a fresh state (replay receipt)', async () => {
    const first = await signIn({ nameId: 'carol' });
    expect(first.res.status).toBe(303);
    const second = await start();
    const request2 = await idp.decodeRequest(second.location);
    // Same assertion id, rebound to the new request: the receipt of the first use refuses it.
    const assertionId = /<saml:Assertion[^>]* ID="([^"]+)"/.exec(
      Buffer.from(first.answer.form.SAMLResponse, 'base64').toString('utf8'),
    )?.[1];
    const reused = idp.response({
      requestId: request2.id,
      acsUrl: request2.acsUrl,
      audience: request2.issuer,
      now: identity.clock.now(),
      nameId: 'carol',
      sign: 'assertion',
      ...(assertionId === undefined ? {} : { assertionId }),
    });
    const res = await postForm({ SAMLResponse: reused, RelayState: request2.relayState! }, second.cookie);
    expect(assertionId).toBeDefined();
    expect(res.status).toBe(401);
  });

  it.each(SHAPES)('refuses signature wrapping %s (401)', async (shape) => {
    const started = await start();
    const decoded = await idp.decodeRequest(started.location);
    const signed = idp.responseXml({
      requestId: decoded.id,
      acsUrl: decoded.acsUrl,
      audience: decoded.issuer,
      now: identity.clock.now(),
      nameId: 'honest',
      sign: XSW_TARGET[shape],
    });
    const attack = toFormValue(applyXsw(shape, signed, 'admin'));
    const res = await postForm({ SAMLResponse: attack, RelayState: decoded.relayState! }, started.cookie);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
  });

  it.each<[string, Partial<SamlTestResponseOptions>]>([
    ['a SHA-1 signature', { signatureAlgorithm: 'rsa-sha1' }],
    ['an unsigned assertion under the `assertion` policy', { sign: 'response' }],
    ['a wrong audience', { audience: 'https://someone-else.example.com' }],
    ['a wrong recipient', { recipient: 'https://evil.example.com/acs' }],
    ['a wrong destination', { destination: 'https://evil.example.com/acs' }],
    [
      'an InResponseTo mismatch',
      { responseInResponseTo: '_someOtherRequest0123456789', subjectInResponseTo: '_someOtherRequest0123456789' },
    ],
    [
      'an expired assertion',
      { notOnOrAfter: new Date(Date.now() - 3600_000), subjectNotOnOrAfter: new Date(Date.now() - 3600_000) },
    ],
    ['a not-yet-valid assertion', { notBefore: new Date(Date.now() + 3600_000) }],
    ['an untrusted signer', { signer: 'untrusted' }],
  ])('refuses %s (401)', async (_name, over) => {
    const { res } = await signIn(over);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_credentials');
  });

  it.each<[string, string]>([
    [
      'a DTD with an entity (XXE)',
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
    ],
    ['a deep document', `${'<a>'.repeat(40)}${'</a>'.repeat(40)}`],
    [
      'a comment-injected NameID',
      '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"><!-- x --></samlp:Response>',
    ],
  ])('refuses %s before parsing (401)', async (_name, xml) => {
    const started = await start();
    const decoded = await idp.decodeRequest(started.location);
    const res = await postForm({ SAMLResponse: toFormValue(xml), RelayState: decoded.relayState! }, started.cookie);
    expect(res.status).toBe(401);
  });

  it('refuses a RelayState that does not match the state cookie, and a missing cookie', async () => {
    const started = await start();
    const answer = await idp.answer(started.location, { now: identity.clock.now() });
    const other = await start();
    expect((await postForm(answer.form, other.cookie)).status).toBe(401);
    expect((await postForm(answer.form)).status).toBe(401);
    expect((await postForm(answer.form, started.cookie)).status).toBe(303);
  });

  it.each([
    ['an extra field', (form: Record<string, string>) => ({ ...form, extra: 'x' })],
    ['a missing RelayState', (form: Record<string, string>) => ({ SAMLResponse: form['SAMLResponse']! })],
  ])('answers a form with %s 400', async (_name, shape) => {
    const started = await start();
    const answer = await idp.answer(started.location, { now: identity.clock.now() });
    const res = await postForm(shape({ ...answer.form }), started.cookie);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_invalid');
  });

  it('serves the SP metadata and answers the OIDC callback shape on a SAML provider 404', async () => {
    const metadata = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/corp/saml/metadata`,
    );
    expect(metadata.status).toBe(200);
    expect(metadata.headers['cache-control']).toBe('no-store');
    const wrongBinding = await request(identity.app.getHttpServer()).get(
      `/identity/v1/federation/${tenant.organizationId}/corp/callback?code=abc&state=${'A'.repeat(43)}`,
    );
    expect(wrongBinding.status).toBe(404);
  });
});
