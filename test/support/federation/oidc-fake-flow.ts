/**
 * Drives {@link OidcRelyingParty} through one sign-in against the fake IdP, for the relying
 * party's specs: fresh transaction secrets, our authorization URL, the IdP's redirect, the callback.
 */
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { FederationProtocolError } from '../../../libs/identity/src/federation/federation-protocol.error.js';
import { sha256Base64Url } from '../../../libs/identity/src/federation/oidc/oidc-id-token.guard.js';
import type { OidcRelyingParty } from '../../../libs/identity/src/federation/oidc/oidc-relying-party.js';
import type {
  OidcCallbackInput,
  OidcClientSettings,
  OidcIdentity,
} from '../../../libs/identity/src/federation/oidc/oidc.types.js';
import type { FakeOidcIdp } from './oidc-fake-idp.js';

/**
 * The relying party's registration for the fake IdP.
 *
 * @example
 * await rp.discover(fakeIdpSettings(idp, { extraEndpointOrigins: ['http://localhost:4000'] }));
 */
export function fakeIdpSettings(idp: FakeOidcIdp, extra: Partial<OidcClientSettings> = {}): OidcClientSettings {
  return {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    redirectUri: 'http://127.0.0.1:9/identity/v1/federation/org_a/fake/callback',
    ...extra,
  };
}

/**
 * 32 random bytes in base64url, as the federation service generates them.
 *
 * @example
 * const state = transactionSecret();
 */
export function transactionSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Runs the authorization leg and returns the callback input the service would build.
 *
 * @example
 * const callback = await fakeCallback(rp, idp);
 * await rp.completeCallback(fakeIdpSettings(idp), callback);
 */
export async function fakeCallback(
  rp: OidcRelyingParty,
  idp: FakeOidcIdp,
  settings = fakeIdpSettings(idp),
): Promise<OidcCallbackInput> {
  const state = transactionSecret();
  const nonce = transactionSecret();
  const codeVerifier = transactionSecret();
  const callback = await idp.authorize(await rp.authorizationUrl(settings, { state, nonce, codeVerifier }));
  return { query: callback.searchParams, expectedState: state, nonceDigest: sha256Base64Url(nonce), codeVerifier };
}

/**
 * One complete sign-in.
 *
 * @example
 * idp.nextIdToken({ alg: 'RS256' });
 * const identity = await fakeSignIn(rp, idp);
 */
export async function fakeSignIn(
  rp: OidcRelyingParty,
  idp: FakeOidcIdp,
  settings = fakeIdpSettings(idp),
): Promise<OidcIdentity> {
  return rp.completeCallback(settings, await fakeCallback(rp, idp, settings));
}

/**
 * Asserts that `promise` rejects with a {@link FederationProtocolError} of this failure and check.
 *
 * @example
 * await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'issuer_mismatch');
 */
export async function expectFederationFailure(
  promise: Promise<unknown>,
  failure: string,
  check: string,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FederationProtocolError);
  expect(error).toMatchObject({ failure, check });
}
