import * as client from 'openid-client';
import { parseStrictJson } from '../../http/strict-json.js';
import type { IdentityClock, IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { isLoopbackHttpIssuer, type ValidatedOidcDiscovery } from './oidc-discovery.js';
import { inspectIdToken, type InspectedIdToken } from './oidc-id-token.guard.js';
import type { OidcJwksCache, OidcKeySet } from './oidc-jwks.cache.js';
import { fromFetchOptions, sendOidcRequest, toFetchResponse } from './oidc-outbound.fetch.js';
import type { OidcClientSettings, OidcPolicy } from './oidc.types.js';

/**
 * Everything one openid-client operation needs from the relying party.
 *
 * @example
 * const config = oidcConfiguration({ settings, discovery, policy, clock }, customFetch);
 */
export interface OidcOperationContext {
  readonly settings: OidcClientSettings;
  readonly discovery: ValidatedOidcDiscovery;
  readonly policy: OidcPolicy;
  readonly clock: IdentityClock;
}

/**
 * A fresh openid-client `Configuration` over the validated discovery document: our HTTP client,
 * plain HTTP only for a loopback issuer, ID-token signature verification on, and openid-client's
 * clock aligned to the runtime clock (its `clockSkew` is the runtime clock's offset from
 * `Date.now()`, its tolerance our skew). A new one per operation keeps openid-client's internal
 * JWKS memo from outliving {@link OidcJwksCache}'s policy.
 *
 * @example
 * const config = oidcConfiguration(context, customFetch);
 * client.buildAuthorizationUrl(config, parameters);
 */
export function oidcConfiguration(
  context: OidcOperationContext,
  customFetch?: client.CustomFetch,
): client.Configuration {
  const { settings, discovery, policy, clock } = context;
  const serverMetadata: client.ServerMetadata = {
    ...discovery.serverMetadata,
    // Relaxing "must be present" only: openid-client still refuses a present, different `iss`.
    ...(policy.allowMissingIssParameter ? { authorization_response_iss_parameter_supported: false } : {}),
  };
  const method = discovery.summary.tokenEndpointAuthMethod;
  const metadata: Partial<client.ClientMetadata> = {
    token_endpoint_auth_method: method,
    [client.clockSkew]: Math.floor(clock.now().getTime() / 1000) - Math.floor(Date.now() / 1000),
    [client.clockTolerance]: policy.clockSkewSeconds,
  };
  const secret = settings.clientSecret ?? '';
  const auth =
    method === 'none'
      ? client.None()
      : method === 'client_secret_basic'
        ? client.ClientSecretBasic(secret)
        : client.ClientSecretPost(secret);
  const config = new client.Configuration(serverMetadata, settings.clientId, metadata, auth);
  if (customFetch !== undefined) config[client.customFetch] = customFetch;
  if (isLoopbackHttpIssuer(settings.issuer)) client.allowInsecureRequests(config);
  client.enableNonRepudiationChecks(config);
  return config;
}

/**
 * The outcome of {@link exchangeCode}: the ID token as our guard inspected it, after openid-client
 * also validated it and verified its signature.
 *
 * @example
 * const { idToken, inspected } = await exchangeCode(context, deps, callbackUrl, checks);
 */
export interface ExchangedIdToken {
  readonly idToken: string;
  readonly inspected: InspectedIdToken;
  readonly claims: client.IDToken;
}

/**
 * Exchanges the code with openid-client (PKCE verifier, state, nonce) while its `customFetch`
 * (a) runs {@link inspectIdToken} on the token answer before openid-client parses it, (b) makes
 * sure the JWKS cache holds the token's `kid` with exactly one forced refresh, and (c) serves the
 * JWKS from that cache for openid-client's signature check. We store only the nonce DIGEST: the
 * nonce openid-client compares with is the token's own claim, given only after it hashed to the
 * digest (openid-client reads `expectedNonce` after the token request; had it read earlier, it
 * would have expected no nonce and failed closed).
 *
 * @example
 * await exchangeCode(context, { httpClient, jwks }, callbackUrl, { expectedState, codeVerifier, nonceDigest });
 */
export async function exchangeCode(
  context: OidcOperationContext,
  deps: { readonly httpClient: IdentityHttpClient; readonly jwks: OidcJwksCache },
  callbackUrl: URL,
  input: { readonly expectedState: string; readonly codeVerifier: string; readonly nonceDigest: string },
): Promise<ExchangedIdToken> {
  const { summary } = context.discovery;
  const tokenEndpoint = new URL(summary.tokenEndpoint).href;
  const jwksUri = new URL(summary.jwksUri).href;
  const checks: client.AuthorizationCodeGrantChecks = {
    pkceCodeVerifier: input.codeVerifier,
    expectedState: input.expectedState,
    idTokenExpected: true,
  };
  let seen: { idToken: string; inspected: InspectedIdToken; keys: OidcKeySet } | undefined;

  const customFetch: client.CustomFetch = async (url, options) => {
    const { method, headers, body } = fromFetchOptions(options);
    if (method === 'GET' && url === jwksUri && seen !== undefined) {
      return new Response(seen.keys.json, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (method !== 'POST' || url !== tokenEndpoint || seen !== undefined) {
      throw new FederationProtocolError('token_invalid', 'unexpected_request');
    }
    const response = await sendOidcRequest(deps.httpClient, 'POST', url, headers, body, 'token_endpoint');
    const text = response.body.toString('utf8');
    if (response.status !== 200) throw tokenEndpointFailure(response.status, text);
    const answer = parseStrictJson(text);
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw new FederationProtocolError('token_invalid', 'token_response_malformed');
    }
    const idToken = (answer as Record<string, unknown>)['id_token'];
    if (typeof idToken !== 'string') throw new FederationProtocolError('token_invalid', 'id_token_missing');
    const inspected = inspectIdToken(idToken, {
      issuer: context.settings.issuer,
      clientId: context.settings.clientId,
      algorithms: summary.idTokenSigningAlgorithms,
      policy: context.policy,
      nowMs: context.clock.now().getTime(),
      nonceDigest: input.nonceDigest,
    });
    const keys = await keysFor(deps.jwks, jwksUri, inspected.kid);
    checks.expectedNonce = inspected.nonce;
    seen = { idToken, inspected, keys };
    return toFetchResponse(response, text);
  };

  const config = oidcConfiguration(context, customFetch);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, checks);
  } catch (error) {
    throw libraryFailure(error);
  }
  const claims = tokens.claims();
  if (seen === undefined || claims === undefined || tokens.id_token !== seen.idToken) {
    throw new FederationProtocolError('token_invalid', 'id_token_missing');
  }
  return { idToken: seen.idToken, inspected: seen.inspected, claims };
}

/** The key set that knows `kid`: the cached one, else after exactly one forced refresh. */
async function keysFor(jwks: OidcJwksCache, jwksUri: string, kid: string | undefined): Promise<OidcKeySet> {
  const cached = await jwks.get(jwksUri);
  if (kid === undefined || cached.kids.has(kid)) return cached;
  const refreshed = await jwks.refresh(jwksUri);
  if (!refreshed.kids.has(kid)) throw new FederationProtocolError('token_invalid', 'unknown_kid');
  return refreshed;
}

function tokenEndpointFailure(status: number, text: string): FederationProtocolError {
  const answer = parseStrictJson(text);
  const error =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? (answer as Record<string, unknown>)['error']
      : undefined;
  if (error === 'invalid_grant') return new FederationProtocolError('token_invalid', 'code_rejected');
  if (error === 'invalid_client' || error === 'unauthorized_client') {
    return new FederationProtocolError('configuration', 'client_rejected');
  }
  if (status >= 300 && status < 400) return new FederationProtocolError('unavailable', 'token_endpoint_redirect');
  if (status >= 500) return new FederationProtocolError('unavailable', 'token_endpoint_unavailable');
  return new FederationProtocolError('idp_error', 'token_endpoint_error');
}

/**
 * Maps what openid-client threw: our own failure raised inside `customFetch` wins (found through
 * the `cause` chain); otherwise the library's refusal is `token_invalid` with a coarse check name.
 * Nothing of the library's error (which may quote claims or bodies) is kept.
 */
function libraryFailure(error: unknown): FederationProtocolError {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof FederationProtocolError) return cause;
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new FederationProtocolError('idp_error', 'idp_error_response');
  }
  if (error instanceof client.ResponseBodyError)
    return new FederationProtocolError('idp_error', 'token_endpoint_error');
  const inner = error instanceof Error ? error.cause : undefined;
  if (inner instanceof Error && inner.message === 'JWT signature verification failed') {
    return new FederationProtocolError('token_invalid', 'signature_invalid');
  }
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (code === 'OAUTH_KEY_SELECTION_FAILED')
    return new FederationProtocolError('token_invalid', 'key_selection_failed');
  if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') return new FederationProtocolError('token_invalid', 'id_token_time');
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED')
    return new FederationProtocolError('token_invalid', 'id_token_claim');
  return new FederationProtocolError('token_invalid', 'id_token_rejected');
}
