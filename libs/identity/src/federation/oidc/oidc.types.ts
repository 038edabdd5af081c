/**
 * What the relying party needs to know about one OIDC provider registration.
 *
 * @example
 * const settings: OidcClientSettings = {
 *   issuer: 'https://login.example.com',
 *   clientId: 'tessera',
 *   clientSecret: null,
 *   redirectUri: 'https://id.example.org/identity/v1/federation/org_1/corp/callback',
 * };
 */
export interface OidcClientSettings {
  /** The issuer identifier, exact as registered (discovery and ID tokens must repeat it byte for byte). */
  readonly issuer: string;
  readonly clientId: string;
  /** `null`: a public client (PKCE only, token endpoint authentication `none`). */
  readonly clientSecret: string | null;
  /** `publicBaseUrl` + `/identity/v1/federation/{orgId}/{providerId}/callback`. */
  readonly redirectUri: string;
  /**
   * Origins (`https://host[:port]`) besides the issuer's that the authorization, token and JWKS
   * endpoints may use.
   * @default []
   */
  readonly extraEndpointOrigins?: readonly string[];
}

/**
 * The relying party's checks that a deployment may tune (`identity-http.md` §6).
 *
 * @example
 * const policy: OidcPolicy = { ...DEFAULT_OIDC_POLICY, clockSkewSeconds: 60 };
 */
export interface OidcPolicy {
  /** Accepted clock difference with the provider, 0..300. @default 30 */
  readonly clockSkewSeconds: number;
  /** Longest accepted ID-token lifetime (`exp` − `iat`), 1..86 400. @default 86400 */
  readonly maxIdTokenLifetimeSeconds: number;
  /**
   * RFC 9207: when the provider advertises `authorization_response_iss_parameter_supported`, the
   * callback's `iss` must be present and equal the issuer; `true` relaxes "must be present" only
   * (a present `iss` must still be equal).
   * @default false
   */
  readonly allowMissingIssParameter: boolean;
}

/**
 * The defaults of {@link OidcPolicy}.
 *
 * @example
 * new OidcRelyingParty({ httpClient, clock, policy: DEFAULT_OIDC_POLICY });
 */
export const DEFAULT_OIDC_POLICY: OidcPolicy = Object.freeze({
  clockSkewSeconds: 30,
  maxIdTokenLifetimeSeconds: 86_400,
  allowMissingIssParameter: false,
});

/**
 * The per-transaction secrets of one authorization request, each 32 random bytes in base64url
 * (43 characters); the caller generates and stores them.
 *
 * @example
 * const input: OidcAuthorizationInput = { state, nonce, codeVerifier };
 */
export interface OidcAuthorizationInput {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/**
 * The callback to complete: the query as received and the transaction's stored values.
 *
 * @example
 * await rp.completeCallback(settings, { query: url.searchParams, expectedState, nonceDigest, codeVerifier });
 */
export interface OidcCallbackInput {
  /** The whole callback query (`code`, `state`, `iss`?) or an error answer (`error=…`). */
  readonly query: URLSearchParams;
  readonly expectedState: string;
  /** Only the digest of the nonce is stored: see {@link OidcCallbackInput.nonceDigest}. */
  readonly expectedNonce?: never;
  /** base64url SHA-256 of the nonce (43 characters); the ID token's `nonce` must hash to it. */
  readonly nonceDigest: string;
  readonly codeVerifier: string;
}

/**
 * The verified outcome of a callback: who signed in, at which issuer.
 *
 * @example
 * const key = { issuer: identity.issuer, subject: identity.subject };
 */
export interface OidcIdentity {
  readonly issuer: string;
  /** The ID token's `sub`. */
  readonly subject: string;
  readonly idTokenExpiresAt: Date;
  /** base64url SHA-256 of the replay key: the ID token's `jti` when present, else the whole ID token. */
  readonly replayDigest: string;
}

/**
 * The token-endpoint client authentication the relying party uses.
 *
 * @example
 * if (summary.tokenEndpointAuthMethod === 'none') console.log('public client');
 */
export type OidcTokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * What discovery established about a provider, after every check passed.
 *
 * @example
 * const summary = await rp.discover(settings);
 * summary.authorizationEndpoint; // 'https://login.example.com/authorize'
 */
export interface OidcDiscoverySummary {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
  /** The ID-token algorithms both sides accept (a subset of `ES256`, `RS256`). */
  readonly idTokenSigningAlgorithms: readonly OidcIdTokenAlgorithm[];
  readonly tokenEndpointAuthMethod: OidcTokenEndpointAuthMethod;
  /** RFC 9207 `authorization_response_iss_parameter_supported`. */
  readonly issParameterSupported: boolean;
}

/**
 * The only ID-token signature algorithms accepted.
 *
 * @example
 * OIDC_ID_TOKEN_ALGORITHMS.includes('ES256'); // true
 */
export const OIDC_ID_TOKEN_ALGORITHMS = Object.freeze(['ES256', 'RS256'] as const);

/**
 * One of {@link OIDC_ID_TOKEN_ALGORITHMS}.
 *
 * @example
 * const alg: OidcIdTokenAlgorithm = 'RS256';
 */
export type OidcIdTokenAlgorithm = (typeof OIDC_ID_TOKEN_ALGORITHMS)[number];
