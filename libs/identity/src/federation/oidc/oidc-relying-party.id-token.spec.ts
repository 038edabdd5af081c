import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeOidcIdp, type FakeOidcIdp } from '../../../../../test/support/federation/oidc-fake-idp.js';
import {
  expectFederationFailure,
  fakeCallback,
  fakeIdpSettings,
  fakeSignIn,
} from '../../../../../test/support/federation/oidc-fake-flow.js';
import { FrozenClock } from '../../runtime/frozen.clock.js';
import { createNodeHttpClient } from '../../runtime/node-http.client.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { DEFAULT_OIDC_POLICY } from './oidc.types.js';

describe('OidcRelyingParty: the ID-token negative table (fake IdP)', () => {
  // The runtime clock is NOT the wall clock: openid-client's own checks must follow it.
  const clock = new FrozenClock('2026-03-01T12:00:00Z');
  const now = (): number => Math.floor(clock.now().getTime() / 1000);
  let idp: FakeOidcIdp;
  let rp: OidcRelyingParty;

  beforeAll(async () => {
    idp = await startFakeOidcIdp({ now: () => clock.now() });
  });

  afterAll(async () => {
    await idp.close();
  });

  beforeEach(() => {
    clock.set('2026-03-01T12:00:00Z');
    rp = new OidcRelyingParty({ httpClient: createNodeHttpClient(), clock, policy: DEFAULT_OIDC_POLICY });
  });

  it('accepts a well-formed ES256 ID token dated by the runtime clock', async () => {
    const identity = await fakeSignIn(rp, idp);
    expect(identity).toMatchObject({ issuer: idp.issuer, subject: 'fake-subject' });
    expect(identity.idTokenExpiresAt).toEqual(new Date((now() + 300) * 1000));
  });

  it('accepts a well-formed RS256 ID token and keys the replay digest on jti when present', async () => {
    idp.nextIdToken({ alg: 'RS256', claims: { jti: 'token-1' } });
    const first = await fakeSignIn(rp, idp);
    idp.nextIdToken({ alg: 'RS256', claims: { jti: 'token-1' } });
    const second = await fakeSignIn(rp, idp);
    expect(first.replayDigest).toBe(second.replayDigest);
  });

  it('refuses an ID token from another issuer (mix-up)', async () => {
    idp.nextIdToken({ claims: { iss: 'http://127.0.0.1:1' } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'issuer_mismatch');
  });

  it('refuses an ID token for another audience', async () => {
    idp.nextIdToken({ claims: { aud: 'another-client' } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'audience_mismatch');
  });

  it('refuses several audiences without azp', async () => {
    idp.nextIdToken({ claims: { aud: [idp.clientId, 'another-client'] } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'azp_missing');
  });

  it('refuses an azp that is not our client id', async () => {
    idp.nextIdToken({ claims: { aud: [idp.clientId, 'another-client'], azp: 'another-client' } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'azp_mismatch');
  });

  it('accepts several audiences with azp equal to our client id', async () => {
    idp.nextIdToken({ claims: { aud: [idp.clientId, 'another-client'], azp: idp.clientId } });
    await expect(fakeSignIn(rp, idp)).resolves.toMatchObject({ subject: 'fake-subject' });
  });

  it('refuses a nonce that does not hash to the stored digest', async () => {
    idp.nextIdToken({ claims: { nonce: 'a-nonce-of-another-transaction' } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'nonce_mismatch');
  });

  it('refuses an ID token without nonce', async () => {
    idp.nextIdToken({ claims: { nonce: undefined } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'nonce_mismatch');
  });

  it('refuses alg none before any verification', async () => {
    idp.nextIdToken({ alg: 'none' });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'alg_not_allowed');
  });

  it('refuses HS256 signed with the client secret as key', async () => {
    idp.nextIdToken({ alg: 'HS256' });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'alg_not_allowed');
  });

  it('refuses an ID token whose payload was altered after signing (signature verified)', async () => {
    idp.nextIdToken({ alterAfterSigning: { sub: 'someone-else' } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'signature_invalid');
  });

  it('refuses an RS256-signed token whose header names the ES256 key (no algorithm confusion)', async () => {
    idp.nextIdToken({ alg: 'RS256', headerJson: (json) => json.replace('"RS256"', '"ES256"') });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'key_selection_failed');
  });

  it('refuses an expired ID token', async () => {
    idp.nextIdToken({ claims: { iat: now() - 600, exp: now() - 60 } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'expired');
  });

  it('accepts an ID token expired by less than the 30 s clock skew', async () => {
    idp.nextIdToken({ claims: { iat: now() - 600, exp: now() - 10 } });
    await expect(fakeSignIn(rp, idp)).resolves.toMatchObject({ subject: 'fake-subject' });
  });

  it('refuses an ID token issued in the future beyond the clock skew', async () => {
    idp.nextIdToken({ claims: { iat: now() + 120, exp: now() + 600 } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'issued_in_future');
  });

  it('refuses an ID token not valid before a later nbf', async () => {
    idp.nextIdToken({ claims: { nbf: now() + 120 } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'not_yet_valid');
  });

  it('refuses an ID token whose lifetime exceeds 24 hours', async () => {
    idp.nextIdToken({ claims: { iat: now(), exp: now() + 86_401 } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'lifetime_too_long');
  });

  it('refuses an ID token without iat', async () => {
    idp.nextIdToken({ claims: { iat: undefined } });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'iat_missing');
  });

  it('refuses a repeated claim in the payload', async () => {
    idp.nextIdToken({ payloadJson: (json) => json.replace('{', '{"sub":"attacker",') });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'duplicate_claim');
  });

  it('refuses a repeated member in the header', async () => {
    idp.nextIdToken({ headerJson: (json) => json.replace('{', '{"alg":"none",') });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'duplicate_header_member');
  });

  it('refuses a token response that repeats id_token', async () => {
    const callback = await fakeCallback(rp, idp);
    const text = '{"access_token":"a","token_type":"Bearer","id_token":"x.y.z","id_token":"x.y.z"}';
    idp.nextTokenResponse(200, text);
    await expectFederationFailure(
      rp.completeCallback(fakeIdpSettings(idp), callback),
      'token_invalid',
      'token_response_malformed',
    );
  });

  it('refuses a token response without an ID token', async () => {
    const callback = await fakeCallback(rp, idp);
    idp.nextTokenResponse(200, { access_token: 'a', token_type: 'Bearer' });
    await expectFederationFailure(
      rp.completeCallback(fakeIdpSettings(idp), callback),
      'token_invalid',
      'id_token_missing',
    );
  });

  it('refuses a replayed code (the token endpoint answers invalid_grant)', async () => {
    const callback = await fakeCallback(rp, idp);
    await rp.completeCallback(fakeIdpSettings(idp), callback);
    await expectFederationFailure(
      rp.completeCallback(fakeIdpSettings(idp), callback),
      'token_invalid',
      'code_rejected',
    );
  });

  it('maps a token endpoint that refuses our client to configuration', async () => {
    const settings = fakeIdpSettings(idp, { clientSecret: 'not-the-secret' });
    await expectFederationFailure(fakeSignIn(rp, idp, settings), 'configuration', 'client_rejected');
  });

  it('maps a failing token endpoint to unavailable', async () => {
    const callback = await fakeCallback(rp, idp);
    idp.nextTokenResponse(503, { error: 'temporarily_unavailable' });
    await expectFederationFailure(
      rp.completeCallback(fakeIdpSettings(idp), callback),
      'unavailable',
      'token_endpoint_server_error',
    );
  });
});
