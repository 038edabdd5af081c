import { DOMParser } from '@xmldom/xmldom';
import { FederationProtocolError, type FederationFailure } from '../federation-protocol.error.js';

/** SAML 2.0 and XML-DSig namespace names. */
export const SAML_NS = Object.freeze({
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
});

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const PROCESSING_INSTRUCTION_NODE = 7;
const ID_ATTRIBUTE_LOCAL_NAMES = new Set(['ID', 'Id', 'id']);

/** DOM node types other than element and text, each named after the guard check that refuses it. */
const REFUSED_NODE_CHECKS: Readonly<Record<number, string>> = {
  4: 'cdata_not_allowed',
  5: 'entity_reference_not_allowed',
  6: 'entity_not_allowed',
  7: 'processing_instruction_not_allowed',
  8: 'comment_not_allowed',
  10: 'dtd_not_allowed',
  12: 'dtd_not_allowed',
};

/**
 * Parses a document that already passed {@link guardSamlXml} with `@xmldom/xmldom` (the parser
 * node-saml and xml-crypto use: one parser family), failing on every parser warning or error, then
 * re-checks the tree: only elements and text (comments too when `allowComments`), a leading XML
 * declaration at most, no undeclared prefix, no duplicate `ID`/`Id`/`id` value.
 */
export function parseSamlXml(xml: string, failure: FederationFailure, allowComments = false): Document {
  const problems: string[] = [];
  const record = (message: string) => {
    problems.push(message);
  };
  const document = new DOMParser({
    locator: {},
    errorHandler: { warning: record, error: record, fatalError: record },
  }).parseFromString(xml, 'text/xml');
  if (problems.length > 0 || !document?.documentElement) throw new FederationProtocolError(failure, 'xml_malformed');
  inspectTree(document, failure, allowComments);
  return document;
}

function inspectTree(document: Document, failure: FederationFailure, allowComments: boolean): void {
  const fail = (check: string): never => {
    throw new FederationProtocolError(failure, check);
  };
  let elementChildren = 0;
  Array.from(document.childNodes).forEach((node, index) => {
    if (node.nodeType === ELEMENT_NODE) elementChildren += 1;
    else if (node.nodeType === PROCESSING_INSTRUCTION_NODE && node.nodeName === 'xml' && index === 0) return;
    else if (node.nodeType === 8 && allowComments) return;
    else if (node.nodeType !== TEXT_NODE || (node.nodeValue ?? '').trim() !== '') fail(refusedNodeCheck(node));
  });
  if (elementChildren !== 1) fail('xml_malformed');
  const ids = new Set<string>();
  const pending: Node[] = [document.documentElement];
  while (pending.length > 0) {
    const node = pending.pop() as Node;
    if (node.nodeType === TEXT_NODE || (node.nodeType === 8 && allowComments)) continue;
    if (node.nodeType !== ELEMENT_NODE) fail(refusedNodeCheck(node));
    const element = node as Element;
    if (element.prefix && !element.namespaceURI) fail('xml_malformed');
    for (const attribute of Array.from(element.attributes)) {
      if (attribute.prefix && attribute.prefix !== 'xmlns' && !attribute.namespaceURI) fail('xml_malformed');
      if (!ID_ATTRIBUTE_LOCAL_NAMES.has(attribute.localName ?? attribute.name)) continue;
      if (ids.has(attribute.value)) fail('duplicate_id');
      ids.add(attribute.value);
    }
    pending.push(...Array.from(element.childNodes));
  }
}

function refusedNodeCheck(node: Node): string {
  return REFUSED_NODE_CHECKS[node.nodeType] ?? 'xml_malformed';
}

/** The element children of `parent`, in document order. */
export function childElements(parent: Node): Element[] {
  return Array.from(parent.childNodes).filter((node): node is Element => node.nodeType === ELEMENT_NODE);
}

/** The element children of `parent` with this namespace and local name. */
export function childrenNamed(parent: Node, namespace: string, localName: string): Element[] {
  return childElements(parent).filter((child) => child.namespaceURI === namespace && child.localName === localName);
}

/** Every element of the document (root included) whose local name is `localName`, in any namespace. */
export function elementsByLocalName(document: Document, localName: string): Element[] {
  return Array.from(document.getElementsByTagNameNS('*', localName));
}

/**
 * The text of an element whose children are exactly one text node, else `null`. Stricter than
 * `textContent`: an element split by any other node (or holding an element) yields nothing.
 */
export function soleText(element: Element): string | null {
  const children = Array.from(element.childNodes);
  if (children.length !== 1 || children[0]?.nodeType !== TEXT_NODE) return null;
  return children[0].nodeValue;
}

/** The attribute's value, `null` when absent (xmldom answers `''` for a missing attribute). */
export function attributeOrNull(element: Element, name: string): string | null {
  return element.hasAttribute(name) ? element.getAttribute(name) : null;
}
