export { OidcRelyingParty, OIDC_DISCOVERY_TTL_MS, type OidcRelyingPartyDeps } from './oidc-relying-party.js';
export { OIDC_JWKS_TTL_MS } from './oidc-jwks.cache.js';
export { sha256Base64Url } from './oidc-id-token.guard.js';
export {
  DEFAULT_OIDC_POLICY,
  OIDC_ID_TOKEN_ALGORITHMS,
  type OidcAuthorizationInput,
  type OidcCallbackInput,
  type OidcClientSettings,
  type OidcDiscoverySummary,
  type OidcIdentity,
  type OidcIdTokenAlgorithm,
  type OidcPolicy,
  type OidcTokenEndpointAuthMethod,
} from './oidc.types.js';
