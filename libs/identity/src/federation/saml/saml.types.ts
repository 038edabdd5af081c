import type { SamlSignaturePolicy } from '../../store/identity-federation.records.js';

/**
 * Our side of one SAML registration: what the customer pastes into their IdP.
 *
 * @example
 * const sp: SamlSpSettings = {
 *   spEntityId: `${base}/identity/v1/federation/${orgId}/${providerId}/saml/metadata`,
 *   acsUrl: `${base}/identity/v1/federation/${orgId}/${providerId}/callback`,
 * };
 */
export interface SamlSpSettings {
  /** `publicBaseUrl` + `/identity/v1/federation/{orgId}/{providerId}/saml/metadata`; the only accepted Audience. */
  readonly spEntityId: string;
  /** `publicBaseUrl` + `/identity/v1/federation/{orgId}/{providerId}/callback`; the only accepted Destination and Recipient. */
  readonly acsUrl: string;
}

/**
 * The IdP side of one SAML registration (identity-http §6).
 *
 * @example
 * const idp: SamlIdpSettings = {
 *   idpEntityId: 'https://idp.example.com/saml',
 *   ssoUrl: 'https://idp.example.com/saml/sso',
 *   idpCertificatesPem: [pem],
 *   signaturePolicy: 'assertion',
 * };
 */
export interface SamlIdpSettings {
  /** The exact `Issuer` of every accepted Response and Assertion. */
  readonly idpEntityId: string;
  /** The HTTP-Redirect SingleSignOnService endpoint: absolute http(s), no query, no fragment. */
  readonly ssoUrl: string;
  /** Trusted signing certificates (PEM), 1..8; a signature by any other key is refused. */
  readonly idpCertificatesPem: readonly string[];
  /**
   * Which signatures must be present and valid: `assertion` (the Assertion), `response` (the
   * Response), `both`, or `assertion_or_response` (at least one of them).
   */
  readonly signaturePolicy: SamlSignaturePolicy;
}

/**
 * Time rules for assertions (identity-http §6).
 *
 * @example
 * const policy: SamlPolicy = { clockSkewSeconds: 30, maxAssertionLifetimeSeconds: 600 };
 */
export interface SamlPolicy {
  /**
   * Tolerance applied to `NotBefore`, `NotOnOrAfter` and `IssueInstant`, 0..300.
   *
   * @default 30
   */
  readonly clockSkewSeconds: number;
  /**
   * Largest accepted `NotOnOrAfter − IssueInstant`, 1..600.
   *
   * @default 600
   */
  readonly maxAssertionLifetimeSeconds: number;
}

/**
 * The defaults of {@link SamlPolicy}: 30 s skew, 10 min assertion lifetime.
 *
 * @example
 * await verifySamlResponse(sp, idp, DEFAULT_SAML_POLICY, input);
 */
export const DEFAULT_SAML_POLICY: SamlPolicy = Object.freeze({
  clockSkewSeconds: 30,
  maxAssertionLifetimeSeconds: 600,
});

/** Largest accepted {@link SamlPolicy.clockSkewSeconds}. */
export const SAML_MAX_CLOCK_SKEW_SECONDS = 300;
/** Largest accepted {@link SamlPolicy.maxAssertionLifetimeSeconds} (10 minutes). */
export const SAML_MAX_ASSERTION_LIFETIME_SECONDS = 600;
/** Largest number of trusted IdP certificates per registration. */
export const SAML_MAX_IDP_CERTIFICATES = 8;

/**
 * The identity a verified SAML response asserts. Every field comes from the bytes the signature
 * covers (node-saml's verified assertion XML), never from the unsigned envelope.
 *
 * @example
 * const { issuer, subject } = await verifySamlResponse(sp, idp, policy, input);
 */
export interface SamlIdentity {
  /** The assertion's Issuer; always equal to the registration's `idpEntityId`. */
  readonly issuer: string;
  /** The NameID text, exactly as signed (a single text node: comments and CDATA are refused). */
  readonly subject: string;
  /** The earliest `NotOnOrAfter` of the Conditions and the bearer SubjectConfirmationData. */
  readonly assertionExpiresAt: Date;
  /** Unpadded base64url SHA-256 of the assertion `ID`: the replay receipt key. */
  readonly replayDigest: string;
}

/**
 * Input of {@link verifySamlResponse}: the ACS form value and the expected request binding.
 *
 * @example
 * const input: SamlResponseInput = { samlResponse: form.SAMLResponse, expectedRequestId, now: clock.now() };
 */
export interface SamlResponseInput {
  /** The `SAMLResponse` form value (base64 of the XML; line breaks tolerated). */
  readonly samlResponse: string;
  /** The ID of the AuthnRequest this browser started (from the state cookie's transaction). */
  readonly expectedRequestId: string;
  /** The request's captured instant (runtime clock); every time rule is evaluated against it. */
  readonly now: Date;
}

/**
 * Input of {@link buildAuthnRequestUrl}.
 *
 * @example
 * const input: SamlAuthnRequestInput = { requestId: `_${selectorB64url}`, relayState: selector, now };
 */
export interface SamlAuthnRequestInput {
  /** The AuthnRequest ID: an xs:ID (letter or `_` first), 16..128 chars of `[A-Za-z0-9_.-]`. */
  readonly requestId: string;
  /** The RelayState: 1..80 printable ASCII characters (SAML bindings §3.4.3). */
  readonly relayState: string;
  /** The request's captured instant (runtime clock): the AuthnRequest `IssueInstant`. */
  readonly now: Date;
}

/**
 * The IdP settings a metadata document yields (see {@link parseIdpMetadata}).
 *
 * @example
 * const { idpEntityId, ssoUrl, idpCertificatesPem } = parseIdpMetadata(xml);
 */
export interface SamlIdpMetadata {
  readonly idpEntityId: string;
  readonly ssoUrl: string;
  readonly idpCertificatesPem: string[];
}
