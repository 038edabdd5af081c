import * as client from 'openid-client';
import type { IdentityHttpClient } from '../../runtime/identity.runtime.js';
import { isLoopbackHost } from '../../runtime/outbound-url.policy.js';
import { parseStrictJson } from '../../http/strict-json.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { fromFetchOptions, sendOidcRequest, toFetchResponse } from './oidc-outbound.fetch.js';
import {
  OIDC_ID_TOKEN_ALGORITHMS,
  type OidcClientSettings,
  type OidcDiscoverySummary,
  type OidcIdTokenAlgorithm,
  type OidcTokenEndpointAuthMethod,
} from './oidc.types.js';

/**
 * A provider's discovery document after every check, with what the relying party derived from it.
 *
 * @example
 * const { serverMetadata, summary } = await fetchOidcDiscovery(httpClient, settings);
 */
export interface ValidatedOidcDiscovery {
  /** The document as openid-client consumes it (algorithms narrowed to ES256/RS256). */
  readonly serverMetadata: client.ServerMetadata;
  readonly summary: OidcDiscoverySummary;
}

/**
 * `true` when openid-client must be told to allow plain HTTP: only for an `http:` issuer on an
 * exact loopback host (development and test; the outbound policy refuses loopback elsewhere).
 *
 * @example
 * if (isLoopbackHttpIssuer(settings.issuer)) client.allowInsecureRequests(config);
 */
export function isLoopbackHttpIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/**
 * Checks the registration values the protocol depends on; throws `configuration` otherwise.
 *
 * @example
 * assertOidcSettings(settings);
 */
export function assertOidcSettings(settings: OidcClientSettings): void {
  const issuer = parseUrl(settings.issuer);
  if (issuer === undefined || issuer.search !== '' || issuer.hash !== '' || settings.issuer.includes('#')) {
    throw new FederationProtocolError('configuration', 'issuer_invalid');
  }
  if (issuer.username !== '' || issuer.password !== '' || !isAllowedOriginScheme(issuer)) {
    throw new FederationProtocolError('configuration', 'issuer_invalid');
  }
  if (settings.clientId.length === 0 || settings.clientId.length > 255) {
    throw new FederationProtocolError('configuration', 'client_id_invalid');
  }
  if (settings.clientSecret !== null && settings.clientSecret.length === 0) {
    throw new FederationProtocolError('configuration', 'client_secret_invalid');
  }
  const redirect = parseUrl(settings.redirectUri);
  if (redirect === undefined || redirect.search !== '' || redirect.hash !== '') {
    throw new FederationProtocolError('configuration', 'redirect_uri_invalid');
  }
  for (const origin of settings.extraEndpointOrigins ?? []) {
    const parsed = parseUrl(origin);
    if (parsed === undefined || parsed.origin !== origin || !isAllowedOriginScheme(parsed)) {
      throw new FederationProtocolError('configuration', 'extra_origin_invalid');
    }
  }
}

/**
 * Fetches the discovery document through openid-client (with our HTTP client as `customFetch`),
 * refuses duplicate JSON members, and validates it against the registration: exact issuer,
 * authorization/token/JWKS endpoints present and on allowlisted origins, `code` response type,
 * PKCE `S256`, ES256 or RS256 ID tokens, a usable token-endpoint authentication method.
 *
 * @example
 * const discovery = await fetchOidcDiscovery(httpClient, settings);
 */
export async function fetchOidcDiscovery(
  httpClient: IdentityHttpClient,
  settings: OidcClientSettings,
): Promise<ValidatedOidcDiscovery> {
  assertOidcSettings(settings);
  const customFetch: client.CustomFetch = async (url, options) => {
    const { method, headers, body } = fromFetchOptions(options);
    const response = await sendOidcRequest(httpClient, method, url, headers, body, 'discovery');
    if (response.status === 200 && parseStrictJson(response.body.toString('utf8')) === undefined) {
      throw new FederationProtocolError('configuration', 'discovery_malformed_json');
    }
    return toFetchResponse(response);
  };
  let config: client.Configuration;
  try {
    config = await client.discovery(new URL(settings.issuer), settings.clientId, undefined, client.None(), {
      [client.customFetch]: customFetch,
      ...(isLoopbackHttpIssuer(settings.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw discoveryFailure(error);
  }
  return validateDiscovery(config.serverMetadata(), settings);
}

function discoveryFailure(error: unknown): FederationProtocolError {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof FederationProtocolError) return cause;
  }
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') {
    return new FederationProtocolError('configuration', 'discovery_issuer_mismatch');
  }
  if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') return new FederationProtocolError('configuration', 'discovery_status');
  return new FederationProtocolError('configuration', 'discovery_invalid');
}

function validateDiscovery(metadata: client.ServerMetadata, settings: OidcClientSettings): ValidatedOidcDiscovery {
  if (metadata.issuer !== settings.issuer) {
    throw new FederationProtocolError('configuration', 'discovery_issuer_mismatch');
  }
  const allowed = new Set([new URL(settings.issuer).origin, ...(settings.extraEndpointOrigins ?? [])]);
  const authorizationEndpoint = endpoint(metadata.authorization_endpoint, allowed, 'authorization_endpoint');
  const tokenEndpoint = endpoint(metadata.token_endpoint, allowed, 'token_endpoint');
  const jwksUri = endpoint(metadata.jwks_uri, allowed, 'jwks_uri');
  if (authorizationEndpoint.includes('?')) {
    throw new FederationProtocolError('configuration', 'authorization_endpoint_has_query');
  }
  if (!stringArray(metadata.response_types_supported)?.includes('code')) {
    throw new FederationProtocolError('configuration', 'response_type_code_unsupported');
  }
  const grantTypes = metadata.grant_types_supported;
  if (grantTypes !== undefined && !stringArray(grantTypes)?.includes('authorization_code')) {
    throw new FederationProtocolError('configuration', 'authorization_code_grant_unsupported');
  }
  if (!stringArray(metadata.code_challenge_methods_supported)?.includes('S256')) {
    throw new FederationProtocolError('configuration', 'pkce_s256_unsupported');
  }
  const advertisedAlgs = stringArray(metadata.id_token_signing_alg_values_supported) ?? [];
  const algorithms = OIDC_ID_TOKEN_ALGORITHMS.filter((alg) => advertisedAlgs.includes(alg));
  if (algorithms.length === 0) throw new FederationProtocolError('configuration', 'id_token_alg_unsupported');
  const tokenEndpointAuthMethod = chooseAuthMethod(metadata, settings);
  const issParameterSupported = metadata.authorization_response_iss_parameter_supported === true;
  const serverMetadata: client.ServerMetadata = {
    ...metadata,
    id_token_signing_alg_values_supported: [...algorithms],
  };
  return {
    serverMetadata,
    summary: Object.freeze({
      issuer: metadata.issuer,
      authorizationEndpoint,
      tokenEndpoint,
      jwksUri,
      idTokenSigningAlgorithms: Object.freeze([...algorithms]) as readonly OidcIdTokenAlgorithm[],
      tokenEndpointAuthMethod,
      issParameterSupported,
    }),
  };
}

function chooseAuthMethod(metadata: client.ServerMetadata, settings: OidcClientSettings): OidcTokenEndpointAuthMethod {
  if (settings.clientSecret === null) return 'none';
  // RFC 8414: an absent list means client_secret_basic only.
  const supported = stringArray(metadata.token_endpoint_auth_methods_supported) ?? ['client_secret_basic'];
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  throw new FederationProtocolError('configuration', 'token_endpoint_auth_unsupported');
}

function endpoint(value: unknown, allowedOrigins: ReadonlySet<string>, name: string): string {
  if (typeof value !== 'string') throw new FederationProtocolError('configuration', `${name}_missing`);
  const url = parseUrl(value);
  if (url === undefined || url.hash !== '' || value.includes('#') || url.username !== '' || url.password !== '') {
    throw new FederationProtocolError('configuration', `${name}_invalid`);
  }
  if (!allowedOrigins.has(url.origin)) {
    throw new FederationProtocolError('configuration', `${name}_origin_not_allowed`);
  }
  return url.href;
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isAllowedOriginScheme(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}
