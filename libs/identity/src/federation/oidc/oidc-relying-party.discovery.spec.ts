import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeOidcIdp, type FakeOidcIdp } from '../../../../../test/support/federation/oidc-fake-idp.js';
import {
  expectFederationFailure,
  fakeCallback,
  fakeIdpSettings,
  fakeSignIn,
  transactionSecret,
} from '../../../../../test/support/federation/oidc-fake-flow.js';
import { FrozenClock } from '../../runtime/frozen.clock.js';
import type { IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { createNodeHttpClient, IdentityHttpClientError } from '../../runtime/node-http.client.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { DEFAULT_OIDC_POLICY } from './oidc.types.js';

describe('OidcRelyingParty: discovery, endpoints and the callback query (fake IdP)', () => {
  const clock = new FrozenClock('2026-03-01T12:00:00Z');
  let idp: FakeOidcIdp;
  let original: Record<string, unknown>;
  let rp: OidcRelyingParty;

  beforeAll(async () => {
    idp = await startFakeOidcIdp({ now: () => clock.now() });
    original = { ...idp.metadata };
  });

  afterAll(async () => {
    await idp.close();
  });

  beforeEach(() => {
    rp = new OidcRelyingParty({ httpClient: createNodeHttpClient(), clock, policy: DEFAULT_OIDC_POLICY });
  });

  afterEach(() => {
    for (const key of Object.keys(idp.metadata)) delete idp.metadata[key];
    Object.assign(idp.metadata, original);
    idp.discoveryText = undefined;
    idp.discoveryStatus = 200;
    idp.jwksStatus = 200;
  });

  const otherOrigin = (): string => idp.issuer.replace('127.0.0.1', 'localhost');

  describe('discovery checks (configuration)', () => {
    it('refuses a discovery document naming another issuer', async () => {
      idp.metadata['issuer'] = 'http://127.0.0.1:1';
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_issuer_mismatch');
    });

    it('compares the issuer exactly (a trailing slash is another issuer)', async () => {
      idp.metadata['issuer'] = `${idp.issuer}/`;
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_issuer_mismatch');
    });

    it.each([
      ['authorization_endpoint', '/authorize'],
      ['token_endpoint', '/token'],
      ['jwks_uri', '/jwks'],
    ])('refuses a %s on an origin that is not allowlisted', async (name, path) => {
      idp.metadata[name] = `${otherOrigin()}${path}`;
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', `${name}_origin_not_allowed`);
    });

    it('accepts an endpoint on an origin the registration lists in extraEndpointOrigins', async () => {
      idp.metadata['token_endpoint'] = `${otherOrigin()}/token`;
      const settings = fakeIdpSettings(idp, { extraEndpointOrigins: [otherOrigin()] });
      await expect(rp.discover(settings)).resolves.toMatchObject({ tokenEndpoint: `${otherOrigin()}/token` });
    });

    it('refuses a provider without PKCE S256', async () => {
      idp.metadata['code_challenge_methods_supported'] = ['plain'];
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'pkce_s256_unsupported');
    });

    it('refuses a provider that does not advertise PKCE at all', async () => {
      delete idp.metadata['code_challenge_methods_supported'];
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'pkce_s256_unsupported');
    });

    it('refuses a provider that signs ID tokens with neither ES256 nor RS256', async () => {
      idp.metadata['id_token_signing_alg_values_supported'] = ['HS256', 'none', 'PS256'];
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'id_token_alg_unsupported');
    });

    it('refuses a provider without the code response type', async () => {
      idp.metadata['response_types_supported'] = ['id_token'];
      await expectFederationFailure(
        rp.discover(fakeIdpSettings(idp)),
        'configuration',
        'response_type_code_unsupported',
      );
    });

    it('refuses an authorization endpoint that carries a query', async () => {
      idp.metadata['authorization_endpoint'] = `${idp.issuer}/authorize?tenant=a`;
      await expectFederationFailure(
        rp.discover(fakeIdpSettings(idp)),
        'configuration',
        'authorization_endpoint_has_query',
      );
    });

    it('refuses a discovery document without jwks_uri', async () => {
      delete idp.metadata['jwks_uri'];
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'jwks_uri_missing');
    });

    it('refuses a discovery document with a repeated member', async () => {
      idp.discoveryText = JSON.stringify(idp.metadata).replace('{', `{"token_endpoint":"${otherOrigin()}/token",`);
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_malformed_json');
    });

    it('refuses a confidential client when the provider supports no client secret method', async () => {
      idp.metadata['token_endpoint_auth_methods_supported'] = ['private_key_jwt'];
      await expectFederationFailure(
        rp.discover(fakeIdpSettings(idp)),
        'configuration',
        'token_endpoint_auth_unsupported',
      );
    });

    it('refuses a plain-http issuer that is not loopback before any request', async () => {
      const settings = fakeIdpSettings(idp, { issuer: 'http://idp.example.com' });
      await expectFederationFailure(rp.discover(settings), 'configuration', 'issuer_invalid');
    });

    it('answers configuration for a missing discovery document and unavailable for a 5xx or no answer', async () => {
      idp.discoveryStatus = 404;
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_status');
      idp.discoveryStatus = 503;
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'unavailable', 'discovery_server_error');
      const closed = fakeIdpSettings(idp, { issuer: 'http://127.0.0.1:1' });
      await expectFederationFailure(rp.discover(closed), 'unavailable', 'discovery_unreachable');
    });

    it('maps an outbound-policy refusal to configuration and an oversized answer to unavailable', async () => {
      const failing = (code: 'url_refused' | 'response_too_large'): IdentityHttpClient => ({
        followsRedirects: false,
        selfTest: () => true,
        request: async () => {
          throw new IdentityHttpClientError(code, 'refused by the test client');
        },
      });
      const refusing = new OidcRelyingParty({ httpClient: failing('url_refused'), clock, policy: DEFAULT_OIDC_POLICY });
      await expectFederationFailure(refusing.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_url_refused');
      const capped = new OidcRelyingParty({
        httpClient: failing('response_too_large'),
        clock,
        policy: DEFAULT_OIDC_POLICY,
      });
      await expectFederationFailure(capped.discover(fakeIdpSettings(idp)), 'unavailable', 'discovery_too_large');
    });

    it('does not follow a redirected discovery document', async () => {
      idp.discoveryStatus = 302;
      await expectFederationFailure(rp.discover(fakeIdpSettings(idp)), 'configuration', 'discovery_status');
    });

    it('answers unavailable when the JWKS cannot be fetched', async () => {
      idp.jwksStatus = 503;
      await expectFederationFailure(fakeSignIn(rp, idp), 'unavailable', 'jwks_server_error');
    });
  });

  describe('the callback query', () => {
    it('refuses a callback whose state is not the transaction state', async () => {
      const callback = await fakeCallback(rp, idp);
      const input = { ...callback, expectedState: transactionSecret() };
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), input),
        'token_invalid',
        'state_mismatch',
      );
    });

    it('refuses a callback that repeats a parameter', async () => {
      const callback = await fakeCallback(rp, idp);
      callback.query.append('code', 'another-code');
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), callback),
        'token_invalid',
        'duplicate_parameter',
      );
    });

    it('answers idp_error for an IdP error response bound to our state', async () => {
      idp.nextAuthorization({ error: 'access_denied' });
      const callback = await fakeCallback(rp, idp);
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), callback),
        'idp_error',
        'idp_error_response',
      );
    });

    it('refuses a missing iss when the provider advertises RFC 9207', async () => {
      idp.nextAuthorization({ iss: null });
      const callback = await fakeCallback(rp, idp);
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), callback),
        'token_invalid',
        'iss_parameter_missing',
      );
    });

    it('refuses a wrong iss when the provider advertises RFC 9207', async () => {
      idp.nextAuthorization({ iss: 'http://127.0.0.1:1' });
      const callback = await fakeCallback(rp, idp);
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), callback),
        'token_invalid',
        'iss_parameter_mismatch',
      );
    });

    it('accepts a missing iss from a provider that does not advertise RFC 9207, but never a wrong one', async () => {
      idp.metadata['authorization_response_iss_parameter_supported'] = false;
      idp.nextAuthorization({ iss: null });
      await expect(fakeSignIn(rp, idp)).resolves.toMatchObject({ subject: 'fake-subject' });
      idp.nextAuthorization({ iss: 'http://127.0.0.1:1' });
      const callback = await fakeCallback(rp, idp);
      await expectFederationFailure(
        rp.completeCallback(fakeIdpSettings(idp), callback),
        'token_invalid',
        'iss_parameter_mismatch',
      );
    });

    it('refuses transaction values that are not 32 bytes of base64url', async () => {
      const input = { state: 'short', nonce: transactionSecret(), codeVerifier: transactionSecret() };
      await expect(rp.authorizationUrl(fakeIdpSettings(idp), input)).rejects.toThrow(RangeError);
      const callback = await fakeCallback(rp, idp);
      await expect(rp.completeCallback(fakeIdpSettings(idp), { ...callback, nonceDigest: 'x' })).rejects.toThrow(
        RangeError,
      );
    });
  });
});
