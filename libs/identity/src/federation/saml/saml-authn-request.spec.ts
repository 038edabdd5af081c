import { describe, expect, it } from '@jest/globals';
import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SAML_TEST_SP, SamlTestIdp } from '../../../../../test/support/federation/saml-idp.js';
import {
  SAML_TEST_NOW,
  SAML_TEST_REQUEST_ID,
  expectFederationError,
} from '../../../../../test/support/federation/saml-sp-harness.js';
import { buildAuthnRequestUrl, validateSamlSsoUrl } from './saml-authn-request.js';
import { guardSamlXml } from './saml-xml.guard.js';

const idp = new SamlTestIdp();
const input = {
  requestId: SAML_TEST_REQUEST_ID,
  relayState: 'aB3-_xYz0123456789abcdefghijklmnopqrstuvwxy',
  now: SAML_TEST_NOW,
};

async function requestXml(location: string): Promise<string> {
  const samlRequest = new URL(location).searchParams.get('SAMLRequest') ?? '';
  return (await promisify(inflateRaw)(Buffer.from(samlRequest, 'base64'))).toString('utf8');
}

describe('buildAuthnRequestUrl', () => {
  it('redirects to the SSO URL followed by ? with SAMLRequest and RelayState only', async () => {
    const location = await buildAuthnRequestUrl(SAML_TEST_SP, idp.settings('both'), input);
    expect(location.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).toBe(true);
    expect([...new URL(location).searchParams.keys()]).toEqual(['SAMLRequest', 'RelayState']);
  });

  it('decodes (IdP side) to a request with our ID, ACS URL, issuer, destination, instant and RelayState', async () => {
    const location = await buildAuthnRequestUrl(SAML_TEST_SP, idp.settings('both'), input);
    await expect(idp.decodeRequest(location)).resolves.toEqual({
      id: SAML_TEST_REQUEST_ID,
      acsUrl: SAML_TEST_SP.acsUrl,
      issuer: SAML_TEST_SP.spEntityId,
      destination: idp.ssoUrl,
      issueInstant: SAML_TEST_NOW.toISOString(),
      relayState: input.relayState,
    });
  });

  it('builds an unsigned SAML 2.0 AuthnRequest for the HTTP-POST binding that passes our own guard', async () => {
    const xml = await requestXml(await buildAuthnRequestUrl(SAML_TEST_SP, idp.settings('both'), input));
    expect(guardSamlXml(xml)).toEqual({ ok: true });
    const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    expect(request.namespaceURI).toBe('urn:oasis:names:tc:SAML:2.0:protocol');
    expect(request.localName).toBe('AuthnRequest');
    expect(request.getAttribute('Version')).toBe('2.0');
    expect(request.getAttribute('ProtocolBinding')).toBe('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
    expect(xml).not.toContain('Signature');
    expect(
      request
        .getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:protocol', 'NameIDPolicy')[0]
        ?.getAttribute('AllowCreate'),
    ).toBe('true');
  });

  it('escapes settings into the XML instead of injecting them', async () => {
    const sp = { ...SAML_TEST_SP, spEntityId: 'https://app.test/a"><saml:Evil/>&' };
    const xml = await requestXml(await buildAuthnRequestUrl(sp, idp.settings('both'), input));
    expect(xml).toContain('https://app.test/a"&gt;&lt;saml:Evil/&gt;&amp;');
    await expect(idp.decodeRequest(await buildAuthnRequestUrl(sp, idp.settings('both'), input))).resolves.toMatchObject(
      {
        issuer: sp.spEntityId,
      },
    );
  });

  it('refuses an SSO URL with a query, fragment, credentials or another scheme', async () => {
    for (const ssoUrl of [
      'https://idp.test/sso?idpid=1',
      'https://idp.test/sso#x',
      'https://user:pw@idp.test/sso',
      'ftp://idp.test/sso',
      'not a url',
      'https://IDP.test/sso',
    ]) {
      const settings = { ...idp.settings('both'), ssoUrl };
      await expectFederationError(
        buildAuthnRequestUrl(SAML_TEST_SP, settings, input),
        'configuration',
        'sso_url_invalid',
      );
    }
  });

  it('accepts a canonical http(s) SSO URL, with or without a path', () => {
    expect(() => validateSamlSsoUrl('https://idp.test/saml/sso')).not.toThrow();
    expect(() => validateSamlSsoUrl('http://127.0.0.1:8080/sso')).not.toThrow();
    expect(() => validateSamlSsoUrl('https://idp.test')).not.toThrow();
  });

  it('refuses a request ID that is not a 16..128-char xs:ID', async () => {
    for (const requestId of ['1abcdefghijklmnopq', '_short', `_${'a'.repeat(128)}`, '_abc"defghijklmnopq']) {
      await expectFederationError(
        buildAuthnRequestUrl(SAML_TEST_SP, idp.settings('both'), { ...input, requestId }),
        'configuration',
        'request_id_invalid',
      );
    }
  });

  it('refuses a RelayState that is empty, longer than 80 bytes or not printable ASCII', async () => {
    for (const relayState of ['', 'x'.repeat(81), 'a b', 'é']) {
      await expectFederationError(
        buildAuthnRequestUrl(SAML_TEST_SP, idp.settings('both'), { ...input, relayState }),
        'configuration',
        'relay_state_invalid',
      );
    }
  });
});
