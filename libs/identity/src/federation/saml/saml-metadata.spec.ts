import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SAML_TEST_KEYS, SAML_TEST_SP, SamlTestIdp } from '../../../../../test/support/federation/saml-idp.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { normalizeIdpCertificatePem, parseIdpMetadata, serviceProviderMetadata } from './saml-metadata.js';
import { guardSamlXml } from './saml-xml.guard.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const idp = new SamlTestIdp();
const canonicalPem = (pem: string) => new X509Certificate(pem).toString();
const certificateBody = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

function configurationError(run: () => unknown): FederationProtocolError {
  try {
    run();
  } catch (error) {
    if (error instanceof FederationProtocolError && error.failure === 'configuration') return error;
    throw error;
  }
  throw new Error('expected a configuration error');
}

describe('serviceProviderMetadata', () => {
  it('is a well-formed SAML metadata document that passes our own guard', () => {
    const xml = serviceProviderMetadata(SAML_TEST_SP);
    expect(guardSamlXml(xml)).toEqual({ ok: true });
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
    expect(root.namespaceURI).toBe(MD);
    expect(root.localName).toBe('EntityDescriptor');
  });

  it('names our entity ID and one HTTP-POST ACS at our ACS URL, wants signed assertions, offers no keys', () => {
    const root = new DOMParser().parseFromString(serviceProviderMetadata(SAML_TEST_SP), 'text/xml').documentElement;
    expect(root.getAttribute('entityID')).toBe(SAML_TEST_SP.spEntityId);
    const descriptor = root.getElementsByTagNameNS(MD, 'SPSSODescriptor')[0];
    expect(descriptor?.getAttribute('AuthnRequestsSigned')).toBe('false');
    expect(descriptor?.getAttribute('WantAssertionsSigned')).toBe('true');
    const services = Array.from(root.getElementsByTagNameNS(MD, 'AssertionConsumerService'));
    expect(services.map((service) => [service.getAttribute('Binding'), service.getAttribute('Location')])).toEqual([
      ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', SAML_TEST_SP.acsUrl],
    ]);
    expect(root.getElementsByTagNameNS(MD, 'KeyDescriptor')).toHaveLength(0);
  });

  it('is deterministic for one SP', () => {
    expect(serviceProviderMetadata(SAML_TEST_SP)).toBe(serviceProviderMetadata(SAML_TEST_SP));
  });
});

describe('parseIdpMetadata', () => {
  it('reads the entity ID, the HTTP-Redirect SSO URL and the signing certificate', () => {
    expect(parseIdpMetadata(idp.metadataXml())).toEqual({
      idpEntityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      idpCertificatesPem: [canonicalPem(idp.certificatePem)],
    });
  });

  it('tolerates comments, skips encryption keys and deduplicates certificates', () => {
    const signing = `<md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBody(SAML_TEST_KEYS.ec.certificatePem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const encryption = signing
      .replace('<md:KeyDescriptor>', '<md:KeyDescriptor use="encryption">')
      .replace(
        certificateBody(SAML_TEST_KEYS.ec.certificatePem),
        certificateBody(SAML_TEST_KEYS.untrusted.certificatePem),
      );
    const duplicate = `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>\n${certificateBody(idp.certificatePem).replace(/.{64}/g, '$&\n')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const xml = idp
      .metadataXml()
      .replace(
        '<md:SingleSignOnService',
        `<!-- exported by the IdP -->${signing}${encryption}${duplicate}<md:SingleSignOnService`,
      );
    expect(parseIdpMetadata(xml).idpCertificatesPem).toEqual([
      canonicalPem(idp.certificatePem),
      canonicalPem(SAML_TEST_KEYS.ec.certificatePem),
    ]);
  });

  it('refuses metadata without an HTTP-Redirect SingleSignOnService', () => {
    const xml = idp
      .metadataXml()
      .replace(/<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2\.0:bindings:HTTP-Redirect"[^>]*\/>/, '');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('sso_redirect_binding_missing');
  });

  it('refuses metadata without a signing certificate', () => {
    const xml = idp.metadataXml().replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, '');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('idp_certificate_missing');
  });

  it('refuses metadata whose only certificate is for encryption', () => {
    const xml = idp.metadataXml().replace('use="signing"', 'use="encryption"');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('idp_certificate_missing');
  });

  it('refuses a DTD (XXE) in metadata before parsing', () => {
    const xml = idp
      .metadataXml()
      .replace('?>', '?><!DOCTYPE md:EntityDescriptor [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>')
      .replace(`entityID="${idp.entityId}"`, 'entityID="&xxe;"');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('dtd_not_allowed');
  });

  it('refuses a certificate that does not parse', () => {
    const xml = idp
      .metadataXml()
      .replace(/<ds:X509Certificate>[^<]+</, '<ds:X509Certificate>bm90IGEgY2VydGlmaWNhdGU=<');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('idp_certificate_invalid');
  });

  it('refuses an SSO URL with a query', () => {
    const xml = idp.metadataXml().replace(`Location="${idp.ssoUrl}"`, `Location="${idp.ssoUrl}?idpid=42"`);
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('sso_url_invalid');
  });

  it('refuses an aggregate (EntitiesDescriptor) or a non-metadata root', () => {
    const aggregate = `<md:EntitiesDescriptor xmlns:md="${MD}">${idp.metadataXml().replace(/^<\?xml[^>]*>/, '')}</md:EntitiesDescriptor>`;
    expect(configurationError(() => parseIdpMetadata(aggregate)).check).toBe('metadata_root_invalid');
    expect(configurationError(() => parseIdpMetadata('<html/>')).check).toBe('metadata_root_invalid');
  });

  it('refuses an IdP descriptor without SAML 2.0 protocol support', () => {
    const xml = idp
      .metadataXml()
      .replace(
        'protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"',
        'protocolSupportEnumeration="urn:oasis:names:tc:SAML:1.1:protocol"',
      );
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('idp_descriptor_missing');
  });

  it('refuses a missing or blank entity ID', () => {
    const xml = idp.metadataXml().replace(`entityID="${idp.entityId}"`, 'entityID=" "');
    expect(configurationError(() => parseIdpMetadata(xml)).check).toBe('idp_entity_id_invalid');
  });
});

describe('normalizeIdpCertificatePem', () => {
  it('canonicalizes a PEM or bare base64 certificate with an RSA ≥ 2048 or P-256 key', () => {
    expect(normalizeIdpCertificatePem(idp.certificatePem)).toBe(canonicalPem(idp.certificatePem));
    expect(normalizeIdpCertificatePem(certificateBody(SAML_TEST_KEYS.ec.certificatePem))).toBe(
      canonicalPem(SAML_TEST_KEYS.ec.certificatePem),
    );
  });

  it('refuses a private key or garbage where a certificate belongs', () => {
    expect(configurationError(() => normalizeIdpCertificatePem(SAML_TEST_KEYS.idp.privateKeyPem)).check).toBe(
      'idp_certificate_invalid',
    );
    expect(
      configurationError(() => normalizeIdpCertificatePem('-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----'))
        .check,
    ).toBe('idp_certificate_invalid');
  });
});
