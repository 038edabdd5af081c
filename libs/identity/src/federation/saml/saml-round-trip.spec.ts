import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SAML_TEST_SP } from '../../../../../test/support/federation/saml-idp.js';
import { SamlTestIdpServer } from '../../../../../test/support/federation/saml-idp-server.js';
import {
  expectFederationError,
  SAML_TEST_NOW,
  SAML_TEST_REQUEST_ID,
} from '../../../../../test/support/federation/saml-sp-harness.js';
import { buildAuthnRequestUrl } from './saml-authn-request.js';
import { parseIdpMetadata } from './saml-metadata.js';
import { verifySamlResponse } from './saml-response.verifier.js';
import { DEFAULT_SAML_POLICY } from './saml.types.js';

const RELAY_STATE = 'Xy7-_k2Jd9QmPz4LnB8tVc1Rw6HsE3jUf5gAo0RiQnW';
let server: SamlTestIdpServer;

beforeAll(async () => {
  server = await SamlTestIdpServer.start({ clock: () => SAML_TEST_NOW });
});
afterAll(async () => {
  await server.close();
});

/** What a browser does with the IdP's auto-submitting page: the hidden form fields. */
function formFields(html: string): { action: string; SAMLResponse: string; RelayState: string } {
  const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  return {
    action: /action="([^"]*)"/.exec(html)?.[1] ?? '',
    SAMLResponse: value('SAMLResponse'),
    RelayState: value('RelayState'),
  };
}

async function signIn(signaturePolicy: 'assertion' | 'response' | 'both' | 'assertion_or_response') {
  const { idpEntityId, ssoUrl, idpCertificatesPem } = parseIdpMetadata(
    await (await fetch(`${new URL(server.idp.ssoUrl).origin}/saml/metadata`)).text(),
  );
  const idp = { idpEntityId, ssoUrl, idpCertificatesPem, signaturePolicy };
  const input = { requestId: SAML_TEST_REQUEST_ID, relayState: RELAY_STATE, now: SAML_TEST_NOW };
  const page = await fetch(await buildAuthnRequestUrl(SAML_TEST_SP, idp, input));
  expect(page.status).toBe(200);
  const form = formFields(await page.text());
  return { idp, form };
}

describe('SAML round trip against the HTTP test IdP', () => {
  it('signs in: metadata → AuthnRequest redirect → auto-posted form → verified identity', async () => {
    server.nextLogin({ nameId: 'bob@corp.test' });
    const { idp, form } = await signIn('both');
    expect(form.action).toBe(SAML_TEST_SP.acsUrl);
    expect(form.RelayState).toBe(RELAY_STATE);
    const identity = await verifySamlResponse(SAML_TEST_SP, idp, DEFAULT_SAML_POLICY, {
      samlResponse: form.SAMLResponse,
      expectedRequestId: SAML_TEST_REQUEST_ID,
      now: SAML_TEST_NOW,
    });
    expect(identity).toMatchObject({ issuer: server.idp.entityId, subject: 'bob@corp.test' });
    expect(server.requests.at(-1)).toMatchObject({ id: SAML_TEST_REQUEST_ID, acsUrl: SAML_TEST_SP.acsUrl });
  });

  it('applies the next login only once, then answers correct responses again', async () => {
    server.nextLogin({ sign: 'response' });
    const shaped = await signIn('assertion');
    const verify = (samlResponse: string) =>
      verifySamlResponse(SAML_TEST_SP, shaped.idp, DEFAULT_SAML_POLICY, {
        samlResponse,
        expectedRequestId: SAML_TEST_REQUEST_ID,
        now: SAML_TEST_NOW,
      });
    await expectFederationError(verify(shaped.form.SAMLResponse), 'token_invalid', 'assertion_signature_missing');
    const plain = await signIn('assertion');
    await expect(verify(plain.form.SAMLResponse)).resolves.toMatchObject({ subject: 'alice@idp.test' });
  });

  it('answers 400 to an SSO request without a SAMLRequest', async () => {
    const response = await fetch(`${server.idp.ssoUrl}?RelayState=x`);
    expect(response.status).toBe(400);
  });
});
