import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { startOidcTestIdp, type OidcTestIdp } from '../../../../../test/support/federation/oidc-idp.js';
import type { IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { createNodeHttpClient } from '../../runtime/node-http.client.js';
import { systemClock } from '../../runtime/frozen.clock.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { sha256Base64Url } from './oidc-id-token.guard.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { DEFAULT_OIDC_POLICY, type OidcClientSettings, type OidcPolicy } from './oidc.types.js';

const REDIRECT_URI = 'http://127.0.0.1:9/identity/v1/federation/org_a/corp/callback';

function secrets(): { state: string; nonce: string; codeVerifier: string } {
  const secret = (): string => randomBytes(32).toString('base64url');
  return { state: secret(), nonce: secret(), codeVerifier: secret() };
}

/** The `alg` of every ID token the token endpoint returned, in order. */
const idTokenAlgs: string[] = [];

/** The real client, recording the ID-token algorithm of token-endpoint answers. */
function recordingHttpClient(): IdentityHttpClient {
  const inner = createNodeHttpClient();
  return {
    followsRedirects: false,
    selfTest: () => inner.selfTest(),
    request: async (request) => {
      const response = await inner.request(request);
      if (request.url.endsWith('/token') && response.status === 200) {
        const idToken = (JSON.parse(response.body.toString('utf8')) as { id_token: string }).id_token;
        const header = JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString('utf8')) as { alg: string };
        idTokenAlgs.push(header.alg);
      }
      return response;
    },
  };
}

function relyingParty(policy: Partial<OidcPolicy> = {}): OidcRelyingParty {
  return new OidcRelyingParty({
    httpClient: recordingHttpClient(),
    clock: systemClock,
    policy: { ...DEFAULT_OIDC_POLICY, ...policy },
  });
}

async function expectFailure(promise: Promise<unknown>, failure: string, check: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FederationProtocolError);
  expect(error).toMatchObject({ failure, check });
}

describe('OidcRelyingParty against oidc-provider', () => {
  let idp: OidcTestIdp;
  let confidential: OidcClientSettings;
  let publicClient: OidcClientSettings;

  beforeAll(async () => {
    idp = await startOidcTestIdp();
    idp.addClient({ clientId: 'rp-rs256', clientSecret: 'rp-secret-rs256', redirectUris: [REDIRECT_URI] });
    idp.addClient({ clientId: 'rp-es256', redirectUris: [REDIRECT_URI], idTokenSignedResponseAlg: 'ES256' });
    confidential = {
      issuer: idp.issuer,
      clientId: 'rp-rs256',
      clientSecret: 'rp-secret-rs256',
      redirectUri: REDIRECT_URI,
    };
    publicClient = { issuer: idp.issuer, clientId: 'rp-es256', clientSecret: null, redirectUri: REDIRECT_URI };
  });

  afterAll(async () => {
    await idp.close();
  });

  /** One browser round trip: our authorization URL, the IdP's programmatic login, the callback query. */
  async function signIn(
    rp: OidcRelyingParty,
    settings: OidcClientSettings,
    subject: string | null,
    browser = new Map<string, string>(),
  ) {
    const input = secrets();
    const url = await rp.authorizationUrl(settings, input);
    if (subject !== null) idp.nextLogin(subject);
    const callback = await idp.authorize(url, browser);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    return {
      query: callback.searchParams,
      expectedState: input.state,
      nonceDigest: sha256Base64Url(input.nonce),
      codeVerifier: input.codeVerifier,
    };
  }

  it('validates the discovery document of a real provider', async () => {
    const summary = await relyingParty().discover(confidential);
    expect(summary).toEqual({
      issuer: idp.issuer,
      authorizationEndpoint: `${idp.issuer}/auth`,
      tokenEndpoint: `${idp.issuer}/token`,
      jwksUri: `${idp.issuer}/jwks`,
      idTokenSigningAlgorithms: ['ES256', 'RS256'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      issParameterSupported: true,
    });
  });

  it('builds an authorization URL with code flow, PKCE S256, state and nonce on the discovered endpoint', async () => {
    const input = secrets();
    const url = new URL(await relyingParty().authorizationUrl(confidential, input));
    expect(url.href.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'rp-rs256',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      state: input.state,
      nonce: input.nonce,
      code_challenge: sha256Base64Url(input.codeVerifier),
      code_challenge_method: 'S256',
    });
  });

  it('signs in a confidential client with an RS256 ID token', async () => {
    const rp = relyingParty();
    const identity = await rp.completeCallback(confidential, await signIn(rp, confidential, 'alice'));
    expect(identity.issuer).toBe(idp.issuer);
    expect(identity.subject).toBe('alice');
    expect(identity.idTokenExpiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(identity.replayDigest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(idTokenAlgs.at(-1)).toBe('RS256');
  });

  it('signs in a public client (PKCE only) with an ES256 ID token', async () => {
    const rp = relyingParty();
    const identity = await rp.completeCallback(publicClient, await signIn(rp, publicClient, 'bob'));
    expect(identity).toMatchObject({ issuer: idp.issuer, subject: 'bob' });
    expect(idTokenAlgs.at(-1)).toBe('ES256');
  });

  it('logs the queued subject in even when the browser still holds an IdP session, else reuses it', async () => {
    const rp = relyingParty();
    const browser = new Map<string, string>();
    await expect(
      rp.completeCallback(confidential, await signIn(rp, confidential, 'ivan', browser)),
    ).resolves.toMatchObject({
      subject: 'ivan',
    });
    await expect(
      rp.completeCallback(confidential, await signIn(rp, confidential, 'judy', browser)),
    ).resolves.toMatchObject({
      subject: 'judy',
    });
    await expect(
      rp.completeCallback(confidential, await signIn(rp, confidential, null, browser)),
    ).resolves.toMatchObject({
      subject: 'judy',
    });
  });

  it('refuses a replayed authorization code (invalid_grant at the token endpoint)', async () => {
    const rp = relyingParty();
    const callback = await signIn(rp, confidential, 'carol');
    await rp.completeCallback(confidential, callback);
    await expectFailure(rp.completeCallback(confidential, callback), 'token_invalid', 'code_rejected');
  });

  it('refuses a callback whose state is not the transaction state', async () => {
    const rp = relyingParty();
    const callback = await signIn(rp, confidential, 'dave');
    const other = secrets().state;
    await expectFailure(
      rp.completeCallback(confidential, { ...callback, expectedState: other }),
      'token_invalid',
      'state_mismatch',
    );
  });

  it('refuses an ID token whose nonce does not hash to the stored digest', async () => {
    const rp = relyingParty();
    const callback = await signIn(rp, confidential, 'erin');
    const nonceDigest = sha256Base64Url(secrets().nonce);
    await expectFailure(
      rp.completeCallback(confidential, { ...callback, nonceDigest }),
      'token_invalid',
      'nonce_mismatch',
    );
  });

  it('answers idp_error when the IdP redirects back with error=access_denied', async () => {
    const rp = relyingParty();
    const input = secrets();
    idp.nextDenial();
    const callback = await idp.authorize(await rp.authorizationUrl(confidential, input));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    await expectFailure(
      rp.completeCallback(confidential, {
        query: callback.searchParams,
        expectedState: input.state,
        nonceDigest: sha256Base64Url(input.nonce),
        codeVerifier: input.codeVerifier,
      }),
      'idp_error',
      'idp_error_response',
    );
  });

  describe('RFC 9207 (the provider advertises authorization_response_iss_parameter_supported)', () => {
    it('refuses a callback without iss', async () => {
      const rp = relyingParty();
      const callback = await signIn(rp, confidential, 'frank');
      callback.query.delete('iss');
      await expectFailure(rp.completeCallback(confidential, callback), 'token_invalid', 'iss_parameter_missing');
    });

    it('refuses a callback whose iss is another issuer, even with allowMissingIssParameter', async () => {
      const rp = relyingParty({ allowMissingIssParameter: true });
      const callback = await signIn(rp, confidential, 'grace');
      callback.query.set('iss', 'http://127.0.0.1:1/other');
      await expectFailure(rp.completeCallback(confidential, callback), 'token_invalid', 'iss_parameter_mismatch');
    });

    it('accepts a callback without iss only under the named option allowMissingIssParameter', async () => {
      const rp = relyingParty({ allowMissingIssParameter: true });
      const callback = await signIn(rp, confidential, 'heidi');
      callback.query.delete('iss');
      await expect(rp.completeCallback(confidential, callback)).resolves.toMatchObject({ subject: 'heidi' });
    });
  });
});
