import type { OidcClientSettings, OidcIdentity } from './oidc/oidc.types.js';
import type { SamlIdentity, SamlIdpSettings, SamlSpSettings } from './saml/saml.types.js';

export type { OidcClientSettings, OidcIdentity, SamlIdentity, SamlIdpSettings, SamlSpSettings };

/**
 * The OIDC relying party the federation service drives (`federation/oidc/`).
 *
 * @example
 * const url = await protocols.oidc.authorizationUrl(settings, { state, nonce, codeVerifier });
 */
export interface OidcProtocol {
  /** Discovery + validation; throws `FederationProtocolError` (`configuration` / `unavailable`). */
  discover(settings: OidcClientSettings): Promise<unknown>;
  authorizationUrl(
    settings: OidcClientSettings,
    input: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<string>;
  completeCallback(
    settings: OidcClientSettings,
    input: {
      readonly query: URLSearchParams;
      readonly expectedState: string;
      readonly nonceDigest: string;
      readonly codeVerifier: string;
    },
  ): Promise<OidcIdentity>;
}

/**
 * The SAML service provider the federation service drives (`federation/saml/`).
 *
 * @example
 * const url = await protocols.saml.buildAuthnRequestUrl(sp, idp, { requestId, relayState: selector, now });
 */
export interface SamlProtocol {
  buildAuthnRequestUrl(
    sp: SamlSpSettings,
    idp: SamlIdpSettings,
    input: { readonly requestId: string; readonly relayState: string; readonly now: Date },
  ): Promise<string>;
  verifySamlResponse(
    sp: SamlSpSettings,
    idp: SamlIdpSettings,
    input: { readonly samlResponse: string; readonly expectedRequestId: string; readonly now: Date },
  ): Promise<SamlIdentity>;
  serviceProviderMetadata(sp: SamlSpSettings): string;
  parseIdpMetadata(xml: string): { idpEntityId: string; ssoUrl: string; idpCertificatesPem: string[] };
}

/** Both protocol engines. */
export interface FederationProtocols {
  readonly oidc: OidcProtocol;
  readonly saml: SamlProtocol;
}
