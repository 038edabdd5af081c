import type { SamlSignaturePolicy } from '../store/identity-federation.records.js';

/** The RP side of one OIDC client registration. */
export interface OidcClientSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** `null`: a public client (PKCE only). */
  readonly clientSecret: string | null;
  readonly redirectUri: string;
}

/** What a verified OIDC callback proves. */
export interface OidcIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly idTokenExpiresAt: Date;
  /** b64url SHA-256 of the ID token's replay key. */
  readonly replayDigest: string;
}

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

/** Our side of a SAML provider. */
export interface SamlSpSettings {
  readonly spEntityId: string;
  readonly acsUrl: string;
}

/** The IdP side of a SAML provider. */
export interface SamlIdpSettings {
  readonly idpEntityId: string;
  readonly ssoUrl: string;
  readonly idpCertificatesPem: readonly string[];
  readonly signaturePolicy: SamlSignaturePolicy;
}

/** What a verified SAML response proves. */
export interface SamlIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly assertionExpiresAt: Date;
  readonly replayDigest: string;
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
