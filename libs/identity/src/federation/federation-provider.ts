import type { IdentityEnvironment } from '../config/identity.config.js';
import { isLoopbackHost } from '../runtime/outbound-url.policy.js';
import type { FederationProtocol, SamlSignaturePolicy } from '../store/identity-federation.records.js';

/**
 * A provider id (identity-http §6).
 *
 * @example
 * PROVIDER_ID_PATTERN.test('okta'); // true
 */
export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** What every provider has, whichever protocol and source. */
interface FederationProviderBase {
  /** `static`: declared in code (read-only); `organization`: registered through the routes. */
  readonly source: 'static' | 'organization';
  readonly organizationId: string;
  readonly providerId: string;
  readonly protocol: FederationProtocol;
  readonly displayName: string;
  readonly jit: boolean;
  readonly storageKey: string;
  /** The registration's version (`organization` only; `null` for `static`). */
  readonly version: number | null;
  readonly createdAt: Date | null;
  readonly updatedAt: Date | null;
}

/** Where an OIDC client secret comes from. */
export type OidcClientSecret =
  | { readonly kind: 'none' }
  | { readonly kind: 'sealed'; readonly ciphertext: Buffer }
  | { readonly kind: 'static'; readonly value: string };

/** A resolved OIDC provider. */
export interface OidcFederationProvider extends FederationProviderBase {
  readonly protocol: 'oidc';
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: OidcClientSecret;
}

/** A resolved SAML provider. */
export interface SamlFederationProvider extends FederationProviderBase {
  readonly protocol: 'saml';
  readonly idpEntityId: string;
  readonly ssoUrl: string;
  readonly idpCertificatesPem: readonly string[];
  readonly signaturePolicy: SamlSignaturePolicy;
}

/**
 * One provider of one organization, from code or from the organization's registrations.
 *
 * @example
 * if (provider.protocol === 'oidc') await oidc.authorizationUrl(oidcSettings(provider, secret), input);
 */
export type FederationProvider = OidcFederationProvider | SamlFederationProvider;

/**
 * The URLs a provider is reached at and pastes into its IdP: the callback (OIDC redirect URI and
 * SAML ACS URL are the same route), the SAML SP entity id (= the metadata URL) and the start URL.
 *
 * @example
 * providerUrls('https://app.example.com', organizationId, 'okta').callbackUrl;
 */
export function providerUrls(
  publicBaseUrl: string,
  organizationId: string,
  providerId: string,
): { callbackUrl: string; metadataUrl: string; startUrl: string; signInPageUrl: string } {
  const base = `${publicBaseUrl.replace(/\/+$/, '')}/identity/v1/federation/${organizationId}/${providerId}`;
  return {
    callbackUrl: `${base}/callback`,
    metadataUrl: `${base}/saml/metadata`,
    startUrl: `${base}/start`,
    signInPageUrl: `${publicBaseUrl.replace(/\/+$/, '')}/identity/organizations/${organizationId}/sso`,
  };
}

/** Why an IdP URL was refused at registration. */
export type IdpUrlRefusal = 'malformed' | 'insecure' | 'user_info' | 'fragment' | 'query' | 'too_long';

/**
 * Checks an issuer or SSO URL given at registration: at most 2048 chars, no user-info, no
 * fragment; https, or `http://localhost|127.0.0.1|[::1]` in development and test only. `noQuery`
 * refuses a query (an SSO URL gets our query appended). `null` when acceptable.
 *
 * @example
 * checkIdpUrl('http://localhost:4000', 'production'); // 'insecure'
 */
export function checkIdpUrl(
  url: string,
  environment: IdentityEnvironment,
  options: { noQuery?: boolean } = {},
): IdpUrlRefusal | null {
  if (url.length > 2048) return 'too_long';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'malformed';
  }
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)) {
    return 'user_info';
  }
  if (parsed.hash !== '' || url.includes('#')) return 'fragment';
  if (options.noQuery === true && (parsed.search !== '' || url.includes('?'))) return 'query';
  if (parsed.protocol === 'https:') return null;
  const local = environment === 'development' || environment === 'test';
  if (local && parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return null;
  return 'insecure';
}
