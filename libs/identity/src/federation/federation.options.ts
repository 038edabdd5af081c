import type { SamlSignaturePolicy } from '../store/identity-federation.records.js';

/**
 * An OIDC provider declared in code (infrastructure as code). It is read-only through the
 * organization routes (they answer 409 `conflict` to a change).
 *
 * @example
 * { organizationId, providerId: 'entra', protocol: 'oidc', displayName: 'Microsoft Entra ID',
 *   issuer: 'https://login.microsoftonline.com/<tid>/v2.0', clientId: '…', clientSecretRef: 'env:ENTRA_CLIENT_SECRET' }
 */
export interface StaticOidcProvider {
  /** The tenant: an organization id (UUIDv7). */
  readonly organizationId: string;
  /** `^[a-z0-9][a-z0-9_-]{0,62}$`, unique within the organization. */
  readonly providerId: string;
  readonly protocol: 'oidc';
  /** 1..200 chars, shown on the sign-in page. */
  readonly displayName: string;
  /** The exact issuer; https (an `http://localhost` issuer only in development and test). */
  readonly issuer: string;
  /** 1..200 visible ASCII chars. */
  readonly clientId: string;
  /** A secret reference (`env:NAME`, `file:/path`) of the client secret; absent = public client (PKCE only). */
  readonly clientSecretRef?: string;
  /** Just-in-time provisioning of unknown subjects as `viewer`. @default false */
  readonly jit?: boolean;
}

/**
 * A SAML provider declared in code (infrastructure as code); read-only through the routes.
 *
 * @example
 * { organizationId, providerId: 'okta-saml', protocol: 'saml', displayName: 'Okta',
 *   idpEntityId: 'http://www.okta.com/exk…', ssoUrl: 'https://acme.okta.com/app/…/sso/saml',
 *   idpCertificatesPem: [pem], signaturePolicy: 'assertion' }
 */
export interface StaticSamlProvider {
  readonly organizationId: string;
  readonly providerId: string;
  readonly protocol: 'saml';
  readonly displayName: string;
  /** The IdP's entity id (the assertion `Issuer`), 1..1024 chars. */
  readonly idpEntityId: string;
  /** The IdP's HTTP-Redirect single sign-on URL (https; `http://localhost` in development and test), without a query. */
  readonly ssoUrl: string;
  /** The IdP's signing certificates (PEM), 1..4. */
  readonly idpCertificatesPem: readonly string[];
  /** Which signatures a response must carry. */
  readonly signaturePolicy: SamlSignaturePolicy;
  /** @default false */
  readonly jit?: boolean;
}

/** A provider declared in code. */
export type StaticFederationProvider = StaticOidcProvider | StaticSamlProvider;

/**
 * Enterprise federation (`IdentityModule.forRoot({ federation })`, identity-http §6): OIDC and
 * SAML sign-in per organization. Providers come from organization owners and admins through the
 * routes (`/identity/v1/organizations/{orgId}/federation/providers`) and, for
 * infrastructure as code, from `providers`.
 *
 * @example
 * federation: { successPath: '/account', providers: [] }
 */
export interface IdentityFederationOptions {
  /** Providers declared in code; read-only through the routes. @default [] */
  readonly providers?: readonly StaticFederationProvider[];
  /**
   * Where a completed sign-in sends the browser (303), a path on `publicBaseUrl`; the page there
   * copies the `__Host-tessera_csrf` cookie into `sessionStorage`. @default '/'
   */
  readonly successPath?: string;
  /** Organization owners and admins register their own providers through the routes. @default true */
  readonly selfService?: boolean;
  /**
   * RFC 9207 relaxation: when a provider advertises `authorization_response_iss_parameter_supported`,
   * accept a callback without `iss` (a wrong `iss` is always refused). @default false
   */
  readonly allowMissingIssParameter?: boolean;
}
