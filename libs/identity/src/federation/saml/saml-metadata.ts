import { createHash, X509Certificate } from 'node:crypto';
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { validateSamlSsoUrl } from './saml-authn-request.js';
import { attributeOrNull, childrenNamed, parseSamlXml, SAML_NS } from './saml-dom.js';
import { guardSamlXml, SAML_XML_LIMITS } from './saml-xml.guard.js';
import { SAML_MAX_IDP_CERTIFICATES, type SamlIdpMetadata, type SamlSpSettings } from './saml.types.js';

const HTTP_REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const ENTITY_ID_MAX_LENGTH = 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const unusable = (check: string): never => {
  throw new FederationProtocolError('configuration', check);
};

/**
 * Our SP metadata document (node-saml's generator): `entityID` = `sp.spEntityId`, one HTTP-POST
 * AssertionConsumerService at `sp.acsUrl`, `WantAssertionsSigned="true"`,
 * `AuthnRequestsSigned="false"`, no NameIDFormat (the IdP's default is accepted) and no keys (we
 * neither sign requests nor accept encrypted assertions). Deterministic: its `ID` derives from
 * the entity ID.
 *
 * @example
 * reply.type('application/samlmetadata+xml').send(serviceProviderMetadata(sp));
 */
export function serviceProviderMetadata(sp: SamlSpSettings): string {
  const id = `_${createHash('sha256').update(sp.spEntityId, 'utf8').digest('hex').slice(0, 40)}`;
  return generateServiceProviderMetadata({
    issuer: sp.spEntityId,
    callbackUrl: sp.acsUrl,
    identifierFormat: null,
    wantAssertionsSigned: true,
    generateUniqueId: () => id,
  });
}

/**
 * Reads an IdP's SAML 2.0 metadata (one `EntityDescriptor` root, as exported by Entra ID, Okta,
 * ADFS, Keycloak, Shibboleth…): its `entityID`, the HTTP-Redirect `SingleSignOnService` location
 * (see {@link validateSamlSsoUrl}) and the signing certificates (`KeyDescriptor` with `use`
 * `signing` or no `use`; each parsed by `node:crypto`, re-encoded as PEM, deduplicated, ≤ 8).
 * The document passes {@link guardSamlXml} first (DTDs, entities and processing instructions are
 * refused; comments are tolerated here, as they are in exported metadata). The metadata's own
 * signature and `validUntil` are not evaluated: an administrator supplies the document.
 * Throws `FederationProtocolError('configuration', check)`.
 *
 * @example
 * const { idpEntityId, ssoUrl, idpCertificatesPem } = parseIdpMetadata(body.idpMetadataXml);
 */
export function parseIdpMetadata(xml: string): SamlIdpMetadata {
  const verdict = guardSamlXml(xml, { ...SAML_XML_LIMITS, allowComments: true });
  if (!verdict.ok) unusable(verdict.check);
  const document = parseSamlXml(xml, 'configuration', true);
  const entity = document.documentElement;
  if (entity.namespaceURI !== SAML_NS.metadata || entity.localName !== 'EntityDescriptor')
    unusable('metadata_root_invalid');
  const idpEntityId = attributeOrNull(entity, 'entityID');
  if (
    idpEntityId === null ||
    idpEntityId.length === 0 ||
    idpEntityId.length > ENTITY_ID_MAX_LENGTH ||
    idpEntityId.trim() !== idpEntityId
  )
    unusable('idp_entity_id_invalid');
  const descriptors = childrenNamed(entity, SAML_NS.metadata, 'IDPSSODescriptor').filter((descriptor) =>
    (descriptor.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML_NS.protocol),
  );
  if (descriptors.length !== 1) unusable('idp_descriptor_missing');
  const descriptor = descriptors[0] as Element;
  const ssoUrl = childrenNamed(descriptor, SAML_NS.metadata, 'SingleSignOnService')
    .find((service) => service.getAttribute('Binding') === HTTP_REDIRECT_BINDING)
    ?.getAttribute('Location');
  if (!ssoUrl) return unusable('sso_redirect_binding_missing');
  validateSamlSsoUrl(ssoUrl);
  return { idpEntityId: idpEntityId as string, ssoUrl, idpCertificatesPem: signingCertificates(descriptor) };
}

function signingCertificates(descriptor: Element): string[] {
  const pems = new Set<string>();
  const keys = childrenNamed(descriptor, SAML_NS.metadata, 'KeyDescriptor').filter((key) => {
    const use = attributeOrNull(key, 'use');
    return use === null || use === 'signing';
  });
  for (const key of keys) {
    for (const keyInfo of childrenNamed(key, SAML_NS.dsig, 'KeyInfo')) {
      const certificates = childrenNamed(keyInfo, SAML_NS.dsig, 'X509Data').flatMap((data) =>
        childrenNamed(data, SAML_NS.dsig, 'X509Certificate'),
      );
      for (const certificate of certificates) pems.add(normalizeIdpCertificatePem(certificate.textContent ?? ''));
    }
  }
  if (pems.size === 0) unusable('idp_certificate_missing');
  if (pems.size > SAML_MAX_IDP_CERTIFICATES) unusable('idp_certificates_too_many');
  return [...pems];
}

/**
 * Canonical PEM of one certificate given as PEM or as bare base64 DER (metadata form), parsed by
 * `node:crypto`; its key must be RSA ≥ 2048 bits or EC P-256 (the keys of RSA-SHA256 and
 * ECDSA-SHA256). Throws `FederationProtocolError('configuration', 'idp_certificate_invalid' |
 * 'idp_certificate_key_not_allowed')`.
 *
 * @example
 * const pems = body.idpCertificatesPem.map(normalizeIdpCertificatePem);
 */
export function normalizeIdpCertificatePem(certificate: string): string {
  const body = certificate
    .replace(/-----BEGIN CERTIFICATE-----|-----END CERTIFICATE-----/g, '')
    .replace(/[\t\n\r ]/g, '');
  if (!BASE64.test(body) || body.length % 4 !== 0) return unusable('idp_certificate_invalid');
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    return unusable('idp_certificate_invalid');
  }
  const key = parsed.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  const allowed =
    (key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= 2048) ||
    (key.asymmetricKeyType === 'ec' && details.namedCurve === 'prime256v1');
  if (!allowed) unusable('idp_certificate_key_not_allowed');
  return parsed.toString();
}
