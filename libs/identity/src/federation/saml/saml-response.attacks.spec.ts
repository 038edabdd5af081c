import { describe, expect, it } from '@jest/globals';
import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { expectFederationError, SamlSpHarness } from '../../../../../test/support/federation/saml-sp-harness.js';
import {
  applyXsw,
  firstChild,
  mutateXml,
  signatureStillVerifies,
  XSW_TARGET,
  type XswShape,
} from '../../../../../test/support/federation/saml-xsw.js';
import type { SamlSignaturePolicy } from '../../store/identity-federation.records.js';
import { FederationProtocolError } from '../federation-protocol.error.js';

const harness = new SamlSpHarness();
const ASSERTION_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
const certificate = harness.idp.certificatePem;

describe('XML signature wrapping (XSW1–XSW8)', () => {
  const shapes: readonly XswShape[] = ['XSW1', 'XSW2', 'XSW3', 'XSW4', 'XSW5', 'XSW6', 'XSW7', 'XSW8'];
  const expectedCheck = (shape: XswShape) =>
    XSW_TARGET[shape] === 'response' ? 'xsw_multiple_responses' : 'xsw_multiple_assertions';

  it.each(shapes)('%s: rejects the wrapped document although its original signature still verifies', async (shape) => {
    const target = XSW_TARGET[shape];
    const signed = harness.xml({ sign: target, responseId: '_response-1', assertionId: '_assertion-1' });
    const attack = applyXsw(shape, signed, 'admin@victim.test');
    expect(attack).toContain('admin@victim.test');
    expect(signatureStillVerifies(attack, target === 'response' ? '_response-1' : '_assertion-1', certificate)).toBe(
      true,
    );
    const policies: readonly SamlSignaturePolicy[] = [target, 'assertion_or_response'];
    for (const policy of policies) {
      await expectFederationError(harness.verify(attack, policy), 'token_invalid', expectedCheck(shape));
    }
  });

  it('rejects two validly signed assertions in one Response', async () => {
    const first = harness.xml({ sign: 'assertion', assertionId: '_first' });
    const second = harness.xml({ sign: 'assertion', assertionId: '_second', nameId: 'mallory@idp.test' });
    const xml = mutateXml(first, (document) => {
      const other = new DOMParser().parseFromString(second, 'text/xml');
      const assertion = firstChild(other.documentElement, ASSERTION_NS, 'Assertion');
      document.documentElement.appendChild(document.importNode(assertion, true));
    });
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'xsw_multiple_assertions');
  });

  it('rejects a Signature placed outside the Response or Assertion', async () => {
    const xml = harness
      .xml({ sign: 'assertion' })
      .replace(
        '<saml:AudienceRestriction>',
        '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/><saml:AudienceRestriction>',
      );
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'signature_position_invalid');
  });

  it('rejects a Signature whose Reference does not point at its parent', async () => {
    const xml = harness
      .xml({ sign: 'both', responseId: '_response-1', assertionId: '_assertion-1' })
      .replace('URI="#_assertion-1"', 'URI="#_response-1"');
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'signature_reference_invalid');
  });
});

describe('comment, entity and processing-instruction injection', () => {
  it('rejects comment injection in the NameID although the signature still verifies', async () => {
    const signed = harness.xml({
      sign: 'assertion',
      assertionId: '_assertion-1',
      nameId: 'admin@victim.test.evil.test',
    });
    const attack = signed.replace('>admin@victim.test.evil.test<', '>admin@victim.test<!---->.evil.test<');
    expect(signatureStillVerifies(attack, '_assertion-1', certificate)).toBe(true);
    await expectFederationError(harness.verify(attack, 'assertion'), 'token_invalid', 'comment_not_allowed');
  });

  it('rejects an XXE external entity (DOCTYPE with a SYSTEM entity)', async () => {
    const xml = harness
      .xml()
      .replace(/>alice@idp\.test</, '>&xxe;<')
      .replace(/^/, `${DECLARATION}<!DOCTYPE samlp:Response [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`);
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'dtd_not_allowed');
  });

  it('rejects an external DTD', async () => {
    const xml = `<!DOCTYPE samlp:Response SYSTEM "https://attacker.test/evil.dtd">${harness.xml()}`;
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'dtd_not_allowed');
  });

  it('rejects entity expansion (billion laughs)', async () => {
    const entities = Array.from({ length: 9 }, (_, index) =>
      index === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${index} "${`&lol${index - 1};`.repeat(10)}">`,
    ).join('');
    const xml = `${DECLARATION}<!DOCTYPE lolz [${entities}]>${harness.xml().replace(/>alice@idp\.test</, '>&lol8;<')}`;
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'dtd_not_allowed');
  });

  it('rejects an undeclared entity reference', async () => {
    const xml = harness.xml().replace(/>alice@idp\.test</, '>&xxe;<');
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'entity_reference_not_allowed');
  });

  it('rejects a processing instruction after the XML declaration', async () => {
    const xml = `${DECLARATION}<?xml-stylesheet type="text/xsl" href="https://attacker.test/x.xsl"?>${harness.xml()}`;
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'processing_instruction_not_allowed');
  });

  it('rejects a processing instruction inside the NameID', async () => {
    const xml = harness.xml().replace(/>alice@idp\.test</, '>alice<?split here?>@idp.test<');
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'processing_instruction_not_allowed');
  });

  it('rejects a CDATA section in the NameID', async () => {
    const xml = harness.xml().replace(/>alice@idp\.test</, '>alice<![CDATA[@idp.test]]><');
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'cdata_not_allowed');
  });
});

describe('algorithm allow-list', () => {
  it('rejects an RSA-SHA1 signature', async () => {
    const xml = harness.xml({ sign: 'assertion', signatureAlgorithm: 'rsa-sha1' });
    expect(xml).toContain('Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'signature_algorithm_not_allowed');
  });

  it('rejects a SHA-1 digest under an RSA-SHA256 signature', async () => {
    const xml = harness.xml({ sign: 'assertion', digestAlgorithm: 'sha1' });
    expect(xml).toContain('Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'digest_algorithm_not_allowed');
  });

  it('rejects an HMAC signature keyed with the IdP certificate (key confusion)', async () => {
    const xml = harness.xml({ sign: 'assertion', signatureAlgorithm: 'hmac-sha1' });
    expect(xml).toContain('Algorithm="http://www.w3.org/2000/09/xmldsig#hmac-sha1"');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'signature_algorithm_not_allowed');
  });

  it('rejects a transform outside the allow-list', async () => {
    const xml = harness
      .xml({ sign: 'assertion' })
      .replace(
        'Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms>',
        'Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116"/></ds:Transforms>',
      );
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'transform_not_allowed');
  });
});

describe('structure: duplicate IDs, encrypted and missing assertions', () => {
  it('rejects a Response and Assertion sharing one ID', async () => {
    const xml = harness.xml({ sign: 'assertion', responseId: '_shared', assertionId: '_shared' });
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'duplicate_id');
  });

  it('rejects another element whose Id repeats the signed assertion ID', async () => {
    const xml = harness
      .xml({ sign: 'assertion', assertionId: '_assertion-1' })
      .replace('<saml:AttributeValue>', '<saml:AttributeValue Id="_assertion-1">');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'duplicate_id');
  });

  it('rejects a duplicate ID hidden behind a character reference', async () => {
    const xml = harness
      .xml({ sign: 'assertion', assertionId: '_assertion-1' })
      .replace('<saml:AttributeValue>', '<saml:AttributeValue ID="&#95;assertion-1">');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'duplicate_id');
  });

  it('rejects an encrypted assertion (unsupported)', async () => {
    const xml = mutateXml(harness.xml({ sign: 'response' }), (document) => {
      const response = document.documentElement;
      const assertion = firstChild(response, ASSERTION_NS, 'Assertion');
      const encrypted = document.createElementNS(ASSERTION_NS, 'saml:EncryptedAssertion');
      const data = document.createElementNS('http://www.w3.org/2001/04/xmlenc#', 'xenc:EncryptedData');
      data.appendChild(document.createTextNode('c2VjcmV0'));
      encrypted.appendChild(data);
      response.replaceChild(encrypted, assertion);
    });
    await expectFederationError(harness.verify(xml, 'response'), 'token_invalid', 'encrypted_assertion_unsupported');
  });

  it('rejects a Success response without an assertion', async () => {
    const xml = mutateXml(harness.xml({ sign: 'none' }), (document) => {
      document.documentElement.removeChild(firstChild(document.documentElement, ASSERTION_NS, 'Assertion'));
    });
    await expectFederationError(harness.verify(xml, 'assertion_or_response'), 'token_invalid', 'assertion_missing');
  });

  it('rejects another root than a SAML 2.0 Response', async () => {
    const xml = harness.xml({ sign: 'none' }).replace(/samlp:Response/g, 'samlp:LogoutResponse');
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'response_root_invalid');
  });
});

describe('size and shape limits (before any library parses)', () => {
  it('rejects an oversize document (> 4 MiB characters)', async () => {
    const xml = harness.xml().replace('<samlp:Status>', `${' '.repeat(4 * 1024 * 1024)}<samlp:Status>`);
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'xml_too_large');
  });

  it('rejects an oversize form value (> 8 MiB)', async () => {
    await expectFederationError(
      harness.verify({ form: 'A'.repeat(8 * 1024 * 1024 + 4) }, 'both'),
      'token_invalid',
      'response_too_large',
    );
  });

  it('rejects a too deep document (> 25 levels)', async () => {
    const nested = `${'<x:e xmlns:x="urn:x">'.repeat(21)}${'</x:e>'.repeat(21)}`;
    const xml = harness.xml().replace(/(<saml:AttributeValue>)/, `$1${nested}`);
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'xml_too_deep');
  });

  it('rejects an element with too many attributes (> 30)', async () => {
    const attributes = Array.from({ length: 31 }, (_, index) => ` a${index}="v"`).join('');
    const xml = harness.xml().replace('<saml:AttributeValue>', `<saml:AttributeValue${attributes}>`);
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'xml_too_many_attributes');
  });

  it('rejects a document with too many elements (> 2048)', async () => {
    const xml = harness
      .xml()
      .replace('<saml:AttributeValue>', `<saml:AttributeValue>${'<x:e xmlns:x="urn:x"/>'.repeat(2048)}`);
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'xml_too_many_elements');
  });

  it('rejects a form value that is not strict base64', async () => {
    await expectFederationError(
      harness.verify({ form: 'PHNhbWxwOlJlc3BvbnNl!' }, 'both'),
      'token_invalid',
      'response_encoding_invalid',
    );
  });

  it('rejects a document that is not UTF-8', async () => {
    const form = Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e]).toString('base64');
    await expectFederationError(harness.verify({ form }, 'both'), 'token_invalid', 'response_encoding_invalid');
  });
});

describe('arbitrary tampering', () => {
  const signed = harness.xml({ sign: 'assertion', nameId: 'alice@idp.test', assertionId: '_assertion-1' });
  const pieces = ['<', '>', '/', '"', '&', '&amp;', '<!---->', '<x/>', 'ID="_assertion-1"', ' ', 'mallory', '\u0000'];

  it('either fails with a FederationProtocolError or yields the signed identity, never another one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: signed.length - 1 }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(...pieces),
        async (at, removed, inserted) => {
          const tampered = signed.slice(0, at) + inserted + signed.slice(at + removed);
          try {
            const identity = await harness.verify(tampered, 'assertion');
            expect(identity).toMatchObject({ subject: 'alice@idp.test', issuer: harness.idp.entityId });
          } catch (error) {
            expect(error).toBeInstanceOf(FederationProtocolError);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
