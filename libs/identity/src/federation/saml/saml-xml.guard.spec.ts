import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { guardSamlXml, SAML_XML_LIMITS } from './saml-xml.guard.js';

const refused = (check: string) => ({ ok: false, check });
const nested = (depth: number) => `${'<e>'.repeat(depth)}${'</e>'.repeat(depth)}`;
const withAttributes = (count: number) =>
  `<e ${Array.from({ length: count }, (_, index) => `a${index}="v"`).join(' ')}/>`;
const withElements = (count: number) => `<r>${'<e/>'.repeat(count - 1)}</r>`;

describe('guardSamlXml limits', () => {
  it('accepts exactly 25 levels and refuses 26', () => {
    expect(guardSamlXml(nested(25))).toEqual({ ok: true });
    expect(guardSamlXml(nested(26))).toEqual(refused('xml_too_deep'));
  });

  it('accepts 30 attributes on one element and refuses 31 (namespace declarations count)', () => {
    expect(guardSamlXml(withAttributes(30))).toEqual({ ok: true });
    expect(guardSamlXml(withAttributes(31))).toEqual(refused('xml_too_many_attributes'));
    expect(guardSamlXml(withAttributes(30).replace('<e ', '<e xmlns:x="urn:x" '))).toEqual(
      refused('xml_too_many_attributes'),
    );
  });

  it('accepts 2048 elements and refuses 2049', () => {
    expect(guardSamlXml(withElements(2048))).toEqual({ ok: true });
    expect(guardSamlXml(withElements(2049))).toEqual(refused('xml_too_many_elements'));
  });

  it('accepts 4 MiB characters and refuses one more', () => {
    const fill = (length: number) => `<r>${'x'.repeat(length - '<r></r>'.length)}</r>`;
    expect(guardSamlXml(fill(SAML_XML_LIMITS.maxChars))).toEqual({ ok: true });
    expect(guardSamlXml(fill(SAML_XML_LIMITS.maxChars + 1))).toEqual(refused('xml_too_large'));
  });

  it('honours custom limits', () => {
    expect(guardSamlXml(nested(3), { ...SAML_XML_LIMITS, maxDepth: 2 })).toEqual(refused('xml_too_deep'));
  });
});

describe('guardSamlXml markup rules', () => {
  it.each([
    ['a DOCTYPE', '<!DOCTYPE r><r/>', 'dtd_not_allowed'],
    ['a lower-case doctype', '<!doctype r><r/>', 'dtd_not_allowed'],
    ['an ENTITY declaration', '<r><!ENTITY x "y"></r>', 'entity_not_allowed'],
    ['another markup declaration', '<r><!ELEMENT r ANY></r>', 'markup_declaration_not_allowed'],
    ['an undeclared entity reference', '<r>&xxe;</r>', 'entity_reference_not_allowed'],
    ['an entity reference in an attribute', '<r a="&xxe;"/>', 'entity_reference_not_allowed'],
    ['a bare ampersand', '<r>a & b</r>', 'entity_reference_not_allowed'],
    ['a processing instruction', '<r><?php x?></r>', 'processing_instruction_not_allowed'],
    ['an XML declaration not at the start', ' <?xml version="1.0"?><r/>', 'processing_instruction_not_allowed'],
    ['a UTF-16 XML declaration', '<?xml version="1.0" encoding="UTF-16"?><r/>', 'xml_declaration_invalid'],
    ['an XML 1.1 declaration', '<?xml version="1.1"?><r/>', 'xml_declaration_invalid'],
    ['a comment', '<r><!-- c --></r>', 'comment_not_allowed'],
    ['a CDATA section', '<r><![CDATA[x]]></r>', 'cdata_not_allowed'],
    ['a NUL character', '<r>\u0000</r>', 'xml_invalid_character'],
    ['a reference to a forbidden character', '<r>&#0;</r>', 'xml_invalid_character'],
    ['a reference beyond Unicode', '<r>&#x110000;</r>', 'xml_invalid_character'],
    ['duplicate ID values', '<r ID="_a"><e ID="_a"/></r>', 'duplicate_id'],
    ['duplicate values across ID and Id', '<r ID="_a"><e Id="_a"/></r>', 'duplicate_id'],
    ['duplicate values with a prefix', '<r ID="_a"><e x:id="_a" xmlns:x="urn:x"/></r>', 'duplicate_id'],
    ['duplicate values behind references', '<r ID="_a"><e ID="&#x5F;&#97;"/></r>', 'duplicate_id'],
    ['duplicate values behind literal whitespace', '<r ID="_a b"><e ID="_a\tb"/></r>', 'duplicate_id'],
  ])('refuses %s', (_name, xml, check) => {
    expect(guardSamlXml(xml)).toEqual(refused(check));
  });

  it.each([
    ['an unclosed element', '<r><e></r>'],
    ['a stray end tag', '<r/></e>'],
    ['two roots', '<r/><r/>'],
    ['text after the root', '<r/>junk'],
    ['text before the root', 'junk<r/>'],
    ['no root', '   '],
    ['an unterminated tag', '<r a="v"'],
    ['an unquoted attribute', '<r a=v/>'],
    ['a repeated attribute', '<r a="1" a="2"/>'],
    ['a < in an attribute value', '<r a="<"/>'],
    ['attributes without whitespace between them', '<r a="1"b="2"/>'],
    ['an unterminated comment', '<r><!-- x</r>'],
  ])('refuses %s as malformed', (_name, xml) => {
    const limits = { ...SAML_XML_LIMITS, allowComments: true };
    expect(guardSamlXml(xml, limits)).toEqual(refused('xml_malformed'));
  });

  it('accepts a UTF-8 XML declaration, predefined entities, character references and whitespace', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<r a='&quot;x&apos;' b="&#x41;&#66;">\n  a &amp; b &lt; c &gt; d\n  <e/>\n</r>\n`;
    expect(guardSamlXml(xml)).toEqual({ ok: true });
  });

  it('tolerates comments only when asked to (metadata)', () => {
    expect(guardSamlXml('<r><!-- c --></r>', { ...SAML_XML_LIMITS, allowComments: true })).toEqual({ ok: true });
  });

  it('answers a verdict, never throws, for arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const verdict = guardSamlXml(text);
        expect(typeof verdict.ok).toBe('boolean');
      }),
    );
  });

  it('answers a verdict, never throws, for arbitrary markup-like input', () => {
    const token = fc.constantFrom(
      '<',
      '>',
      '</',
      '/>',
      '<?',
      '?>',
      '<!',
      '--',
      '&',
      ';',
      '#x',
      '"',
      "'",
      '=',
      'e',
      ' ',
      'ID',
      '&amp;',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => {
        const verdict = guardSamlXml(tokens.join(''));
        expect(typeof verdict.ok).toBe('boolean');
      }),
    );
  });
});
