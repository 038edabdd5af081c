import { randomBytes, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml, type SignatureAlgorithm } from 'xml-crypto';
import type { SamlSignaturePolicy } from '@tessera/identity';
import type { SamlIdpSettings } from '../../../libs/identity/src/federation/saml/saml.types.js';

const inflateRawAsync = promisify(inflateRaw);
const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');

/** One test-only key pair (generated once with openssl; never used outside tests). */
export interface SamlTestKey {
  readonly privateKeyPem: string;
  readonly certificatePem: string;
}

/**
 * The committed test keys: `idp` (RSA 2048, the trusted IdP key), `untrusted` (RSA 2048, a key no
 * registration trusts) and `ec` (P-256, for the ECDSA-SHA256 fail-closed test).
 */
export const SAML_TEST_KEYS: Readonly<Record<'idp' | 'untrusted' | 'ec', SamlTestKey>> = {
  idp: { privateKeyPem: fixture('idp-rsa.key.pem'), certificatePem: fixture('idp-rsa.cert.pem') },
  untrusted: { privateKeyPem: fixture('untrusted-rsa.key.pem'), certificatePem: fixture('untrusted-rsa.cert.pem') },
  ec: { privateKeyPem: fixture('idp-ec.key.pem'), certificatePem: fixture('idp-ec.cert.pem') },
};

const SIGNATURE_ALGORITHMS = {
  'rsa-sha256': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'rsa-sha1': 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  'hmac-sha1': 'http://www.w3.org/2000/09/xmldsig#hmac-sha1',
  'ecdsa-sha256': 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
} as const;
const DIGEST_ALGORITHMS = {
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
} as const;
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** Our SP settings in SAML unit tests (what the lead's routes derive from `publicBaseUrl`). */
export const SAML_TEST_SP = Object.freeze({
  spEntityId: 'https://app.test/identity/v1/federation/0190b3c4-5f6a-7b8c-9d0e-1f2a3b4c5d6e/corp/saml/metadata',
  acsUrl: 'https://app.test/identity/v1/federation/0190b3c4-5f6a-7b8c-9d0e-1f2a3b4c5d6e/corp/callback',
});

/** How the test IdP shapes one Response; every field has a correct default. */
export interface SamlTestResponseOptions {
  /** The AuthnRequest ID: both InResponseTo values unless overridden. */
  readonly requestId: string;
  /** Destination and Recipient unless overridden. */
  readonly acsUrl: string;
  /** The Audience (our SP entity ID). */
  readonly audience: string;
  /** Base instant of every time field. @default new Date() */
  readonly now?: Date;
  /** @default 'alice@idp.test' */
  readonly nameId?: string;
  /** @default 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' */
  readonly nameIdFormat?: string;
  /** Raw XML appended inside Conditions (after the AudienceRestriction), signed with the rest. @default none */
  readonly extraConditionsXml?: string;
  /** Issuer of the Response and the Assertion. @default the IdP entity ID */
  readonly issuer?: string;
  /** Issuer of the Assertion only. @default issuer */
  readonly assertionIssuer?: string;
  /** Which elements carry a signature. @default 'both' */
  readonly sign?: SamlSignaturePolicy | 'none';
  /** `null` omits the attribute. @default acsUrl */
  readonly destination?: string | null;
  /** @default acsUrl */
  readonly recipient?: string;
  /** `null` omits the attribute. @default requestId */
  readonly responseInResponseTo?: string | null;
  /** @default requestId */
  readonly subjectInResponseTo?: string;
  /** @default now */
  readonly issueInstant?: Date;
  /** @default now */
  readonly notBefore?: Date;
  /** Conditions NotOnOrAfter. @default now + 5 min */
  readonly notOnOrAfter?: Date;
  /** SubjectConfirmationData NotOnOrAfter. @default notOnOrAfter */
  readonly subjectNotOnOrAfter?: Date;
  /** A status other than Success yields a Response without an Assertion. @default Success */
  readonly statusCode?: string;
  /** @default random */
  readonly responseId?: string;
  /** @default random */
  readonly assertionId?: string;
  /** AttributeStatement content (name → one value). @default one `email` attribute */
  readonly attributes?: Readonly<Record<string, string>>;
  /** How instants are written. @default `toISOString()` (UTC, milliseconds, `Z`) */
  readonly formatInstant?: (instant: Date) => string;
  /** @default 'rsa-sha256' */
  readonly signatureAlgorithm?: keyof typeof SIGNATURE_ALGORITHMS;
  /** @default 'sha256' */
  readonly digestAlgorithm?: keyof typeof DIGEST_ALGORITHMS;
  /** Which committed key signs (`hmac-sha1` uses the IdP certificate PEM as the HMAC key). @default 'idp' */
  readonly signer?: keyof typeof SAML_TEST_KEYS;
}

/** What the test IdP read from an HTTP-Redirect AuthnRequest. */
export interface SamlTestAuthnRequest {
  readonly id: string;
  readonly acsUrl: string;
  readonly issuer: string;
  readonly destination: string;
  readonly issueInstant: string;
  readonly relayState: string | null;
}

/** The IdP's answer to one AuthnRequest: what the browser would POST to the ACS URL. */
export interface SamlTestAnswer {
  readonly request: SamlTestAuthnRequest;
  readonly acsUrl: string;
  readonly form: { readonly SAMLResponse: string; readonly RelayState: string };
  /** An auto-submitting HTML form (what a real IdP serves the browser). */
  readonly html: string;
}

/**
 * An in-process SAML IdP for tests that signs REAL responses with xml-crypto (RSA-SHA256,
 * exclusive C14N, enveloped signatures) using the committed test key, and answers the SP's
 * HTTP-Redirect AuthnRequests.
 *
 * @example
 * const idp = new SamlTestIdp();
 * const answer = await idp.answer(startResponse.headers.location, { nameId: 'bob@idp.test' });
 * await agent.post(answer.acsUrl).type('form').send(answer.form);
 */
export class SamlTestIdp {
  readonly entityId: string;
  readonly ssoUrl: string;

  constructor(options: { readonly entityId?: string; readonly ssoUrl?: string } = {}) {
    this.entityId = options.entityId ?? 'https://idp.test/saml/metadata';
    this.ssoUrl = options.ssoUrl ?? 'https://idp.test/saml/sso';
  }

  /** The trusted signing certificate (PEM). */
  get certificatePem(): string {
    return SAML_TEST_KEYS.idp.certificatePem;
  }

  /** Registration settings trusting this IdP's certificate. */
  settings(signaturePolicy: SamlSignaturePolicy = 'both'): SamlIdpSettings {
    return {
      idpEntityId: this.entityId,
      ssoUrl: this.ssoUrl,
      idpCertificatesPem: [this.certificatePem],
      signaturePolicy,
    };
  }

  /** IdP metadata: entityID, an HTTP-Redirect SSO service and the signing certificate. */
  metadataXml(): string {
    const certificate = this.certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
    return (
      `<?xml version="1.0" encoding="UTF-8"?>` +
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escapeXml(this.entityId)}">` +
      `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(this.ssoUrl)}/post"/>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escapeXml(this.ssoUrl)}"/>` +
      `</md:IDPSSODescriptor></md:EntityDescriptor>`
    );
  }

  /** The signed Response XML. */
  responseXml(options: SamlTestResponseOptions): string {
    const sign = options.sign ?? 'both';
    let xml = this.unsignedResponseXml(options);
    if (options.statusCode !== undefined && options.statusCode !== SUCCESS)
      return sign === 'none' ? xml : this.signResponse(xml, options);
    if (sign === 'assertion' || sign === 'both' || sign === 'assertion_or_response') xml = signAssertion(xml, options);
    if (sign === 'response' || sign === 'both') xml = this.signResponse(xml, options);
    return xml;
  }

  /** The `SAMLResponse` form value (base64 of {@link responseXml}). */
  response(options: SamlTestResponseOptions): string {
    return toFormValue(this.responseXml(options));
  }

  /** Decodes the SP's HTTP-Redirect AuthnRequest (must be `ssoUrl?SAMLRequest=…`). */
  async decodeRequest(location: string): Promise<SamlTestAuthnRequest> {
    if (!location.startsWith(`${this.ssoUrl}?`)) throw new Error(`not a redirect to ${this.ssoUrl}: ${location}`);
    const query = new URL(location).searchParams;
    const samlRequest = query.get('SAMLRequest');
    if (samlRequest === null) throw new Error('no SAMLRequest parameter');
    const xml = (await inflateRawAsync(Buffer.from(samlRequest, 'base64'))).toString('utf8');
    const request = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    const issuer = request.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0];
    if (request.localName !== 'AuthnRequest' || issuer === undefined) throw new Error('not an AuthnRequest');
    return {
      id: request.getAttribute('ID') ?? '',
      acsUrl: request.getAttribute('AssertionConsumerServiceURL') ?? '',
      destination: request.getAttribute('Destination') ?? '',
      issueInstant: request.getAttribute('IssueInstant') ?? '',
      issuer: issuer.textContent ?? '',
      relayState: query.get('RelayState'),
    };
  }

  /**
   * The whole IdP side for an HTTP test: decode the AuthnRequest the SP's start redirected to,
   * sign a Response for it (ID, ACS URL and audience from the request; `overrides` shape the rest)
   * and return the form the browser would POST to the ACS URL.
   */
  async answer(location: string, overrides: Partial<SamlTestResponseOptions> = {}): Promise<SamlTestAnswer> {
    const request = await this.decodeRequest(location);
    const samlResponse = this.response({
      requestId: request.id,
      acsUrl: request.acsUrl,
      audience: request.issuer,
      ...overrides,
    });
    const relayState = request.relayState ?? '';
    const html =
      `<!DOCTYPE html><html><body onload="document.forms[0].submit()">` +
      `<form method="post" action="${escapeXml(request.acsUrl)}">` +
      `<input type="hidden" name="SAMLResponse" value="${samlResponse}"/>` +
      `<input type="hidden" name="RelayState" value="${escapeXml(relayState)}"/>` +
      `<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
    return { request, acsUrl: request.acsUrl, form: { SAMLResponse: samlResponse, RelayState: relayState }, html };
  }

  private unsignedResponseXml(options: SamlTestResponseOptions): string {
    const now = options.now ?? new Date();
    const time = options.formatInstant ?? ((instant: Date) => instant.toISOString());
    const issuer = escapeXml(options.issuer ?? this.entityId);
    const status = options.statusCode ?? SUCCESS;
    const destination = options.destination === undefined ? options.acsUrl : options.destination;
    const inResponseTo = options.responseInResponseTo === undefined ? options.requestId : options.responseInResponseTo;
    const responseAttributes = [
      `ID="${escapeXml(options.responseId ?? randomId())}"`,
      `Version="2.0"`,
      `IssueInstant="${time(options.issueInstant ?? now)}"`,
      destination === null ? '' : `Destination="${escapeXml(destination)}"`,
      inResponseTo === null ? '' : `InResponseTo="${escapeXml(inResponseTo)}"`,
    ].filter((attribute) => attribute !== '');
    const assertionIssuer = options.assertionIssuer === undefined ? issuer : escapeXml(options.assertionIssuer);
    const assertion = status === SUCCESS ? this.assertionXml(options, now, assertionIssuer) : '';
    return (
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ${responseAttributes.join(' ')}>` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="${escapeXml(status)}"/></samlp:Status>` +
      assertion +
      `</samlp:Response>`
    );
  }

  private assertionXml(options: SamlTestResponseOptions, now: Date, issuer: string): string {
    const time = options.formatInstant ?? ((instant: Date) => instant.toISOString());
    const notOnOrAfter = options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
    const subjectNotOnOrAfter = options.subjectNotOnOrAfter ?? notOnOrAfter;
    const attributes = options.attributes ?? { email: options.nameId ?? 'alice@idp.test' };
    const attributeXml = Object.entries(attributes)
      .map(
        ([name, value]) =>
          `<saml:Attribute Name="${escapeXml(name)}"><saml:AttributeValue>${escapeXml(value)}</saml:AttributeValue></saml:Attribute>`,
      )
      .join('');
    return (
      `<saml:Assertion ID="${escapeXml(options.assertionId ?? randomId())}" Version="2.0" IssueInstant="${time(options.issueInstant ?? now)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="${escapeXml(options.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')}">${escapeXml(options.nameId ?? 'alice@idp.test')}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData InResponseTo="${escapeXml(options.subjectInResponseTo ?? options.requestId)}" Recipient="${escapeXml(options.recipient ?? options.acsUrl)}" NotOnOrAfter="${time(subjectNotOnOrAfter)}"/>` +
      `</saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${time(options.notBefore ?? now)}" NotOnOrAfter="${time(notOnOrAfter)}">` +
      `<saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience)}</saml:Audience></saml:AudienceRestriction>${options.extraConditionsXml ?? ''}</saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${time(now)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      (attributeXml === '' ? '' : `<saml:AttributeStatement>${attributeXml}</saml:AttributeStatement>`) +
      `</saml:Assertion>`
    );
  }

  private signResponse(xml: string, options: SamlTestResponseOptions): string {
    return signElement(xml, "/*[local-name()='Response']", options);
  }
}

function signAssertion(xml: string, options: SamlTestResponseOptions): string {
  return signElement(xml, "/*[local-name()='Response']/*[local-name()='Assertion']", options);
}

/** An enveloped signature placed right after the element's Issuer (schema order). */
function signElement(xml: string, xpath: string, options: SamlTestResponseOptions): string {
  const algorithm = options.signatureAlgorithm ?? 'rsa-sha256';
  const key = SAML_TEST_KEYS[options.signer ?? (algorithm === 'ecdsa-sha256' ? 'ec' : 'idp')];
  const signed = new SignedXml({
    privateKey: algorithm === 'hmac-sha1' ? SAML_TEST_KEYS.idp.certificatePem : key.privateKeyPem,
    publicCert: key.certificatePem,
    signatureAlgorithm: SIGNATURE_ALGORITHMS[algorithm],
    canonicalizationAlgorithm: EXC_C14N,
  });
  if (algorithm === 'hmac-sha1') signed.enableHMAC();
  if (algorithm === 'ecdsa-sha256')
    signed.SignatureAlgorithms[SIGNATURE_ALGORITHMS['ecdsa-sha256']] =
      EcdsaSha256Signer as unknown as new () => SignatureAlgorithm;
  signed.addReference({
    xpath,
    transforms: [ENVELOPED, EXC_C14N],
    digestAlgorithm: DIGEST_ALGORITHMS[options.digestAlgorithm ?? 'sha256'],
  });
  signed.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${xpath}/*[local-name()='Issuer']`, action: 'after' },
  });
  return signed.getSignedXml();
}

/**
 * ECDSA-SHA256 signing (XML-DSig 1.1: raw r‖s) plugged into xml-crypto through its documented
 * algorithm registry; test-only, to show that the SP fails closed on ECDSA (xml-crypto 6 ships no
 * ECDSA verifier).
 */
class EcdsaSha256Signer {
  getSignature(signedInfo: string, privateKey: string): string {
    return cryptoSign('sha256', Buffer.from(signedInfo), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString(
      'base64',
    );
  }

  verifySignature(): boolean {
    throw new Error('the test IdP only signs');
  }

  getAlgorithmName(): string {
    return SIGNATURE_ALGORITHMS['ecdsa-sha256'];
  }
}

/** The base64 `SAMLResponse` form value of a Response XML. */
export function toFormValue(xml: string): string {
  return Buffer.from(xml, 'utf8').toString('base64');
}

function randomId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

/** Escapes text for an XML attribute value or text node. */
export function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
