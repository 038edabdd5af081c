import type { SamlSignaturePolicy } from '../../store/identity-federation.records.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { attributeOrNull, childElements, childrenNamed, elementsByLocalName, SAML_NS } from './saml-dom.js';

/**
 * The algorithm allow-list (issue 14 "Lessons"): RSA-SHA256 or ECDSA-SHA256 signatures, SHA-256
 * digests, exclusive or inclusive C14N 1.0 without comments, the enveloped-signature transform.
 * Anything else (SHA-1, HMAC, RSA-MGF1, SHA-512, XPath/XSLT transforms, an unknown URI) is refused
 * before any signature is looked at; a missing `Algorithm` is never defaulted.
 *
 * ECDSA-SHA256 is allowed by policy, but xml-crypto 6 (node-saml's verifier) implements no ECDSA
 * signature method: an ECDSA-signed response passes this list and then fails verification, closed.
 */
export const SAML_ALLOWED_ALGORITHMS = Object.freeze({
  SignatureMethod: Object.freeze([
    'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
  ]),
  DigestMethod: Object.freeze(['http://www.w3.org/2001/04/xmlenc#sha256']),
  CanonicalizationMethod: Object.freeze([
    'http://www.w3.org/2001/10/xml-exc-c14n#',
    'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  ]),
  Transform: Object.freeze([
    'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
    'http://www.w3.org/2001/10/xml-exc-c14n#',
    'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  ]),
});

const ALGORITHM_CHECKS: Readonly<Record<keyof typeof SAML_ALLOWED_ALGORITHMS, string>> = {
  SignatureMethod: 'signature_algorithm_not_allowed',
  DigestMethod: 'digest_algorithm_not_allowed',
  CanonicalizationMethod: 'canonicalization_not_allowed',
  Transform: 'transform_not_allowed',
};

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** The unverified envelope's shape once the structural rules hold. */
export interface SamlResponseShape {
  readonly response: Element;
  /** The one Assertion: the Response's only Assertion child, found by position. */
  readonly assertion: Element;
  readonly responseSigned: boolean;
  readonly assertionSigned: boolean;
}

const invalid = (check: string): never => {
  throw new FederationProtocolError('token_invalid', check);
};

/**
 * Checks every `SignatureMethod`, `DigestMethod`, `CanonicalizationMethod` and `Transform` of the
 * document (by local name, in any namespace and position: xml-crypto looks them up that way)
 * against {@link SAML_ALLOWED_ALGORITHMS}.
 */
export function checkSignatureAlgorithms(document: Document): void {
  for (const [localName, allowed] of Object.entries(SAML_ALLOWED_ALGORITHMS)) {
    for (const element of elementsByLocalName(document, localName)) {
      const algorithm = attributeOrNull(element, 'Algorithm');
      if (algorithm === null || !allowed.includes(algorithm))
        invalid(ALGORITHM_CHECKS[localName as keyof typeof SAML_ALLOWED_ALGORITHMS]);
    }
  }
}

/**
 * The structural rules on the raw document, before signature verification. They only ever refuse:
 * nothing read here becomes part of the identity.
 *
 * - the root is a SAML 2.0 protocol `Response` (Version 2.0) and the only element named `Response`;
 * - its status is Success (else `idp_error`);
 * - exactly one element named `Assertion` in the whole document, and it is a direct child of the
 *   Response (XSW: wrapped or relocated copies are refused, never skipped); no `EncryptedAssertion`
 *   (unsupported);
 * - every `Signature` is the direct child of the Response or of the Assertion (at most one each),
 *   holds one `SignedInfo` with one `Reference` whose URI is `#` + its parent's ID, and at most two
 *   transforms;
 * - the signatures the policy requires are present (validity is node-saml's to verify).
 */
export function checkResponseStructure(document: Document, policy: SamlSignaturePolicy): SamlResponseShape {
  const response = document.documentElement;
  if (response.namespaceURI !== SAML_NS.protocol || response.localName !== 'Response') invalid('response_root_invalid');
  if (response.getAttribute('Version') !== '2.0') invalid('version_invalid');
  if (elementsByLocalName(document, 'Response').length !== 1) invalid('xsw_multiple_responses');
  checkStatus(response);
  if (elementsByLocalName(document, 'EncryptedAssertion').length > 0) invalid('encrypted_assertion_unsupported');
  const assertions = elementsByLocalName(document, 'Assertion');
  if (assertions.length === 0) invalid('assertion_missing');
  if (assertions.length > 1) invalid('xsw_multiple_assertions');
  const assertion = assertions[0] as Element;
  if (assertion.parentNode !== response || assertion.namespaceURI !== SAML_NS.assertion)
    invalid('xsw_assertion_position');
  checkSignaturePlacement(document, response, assertion);
  const responseSigned = childrenNamed(response, SAML_NS.dsig, 'Signature').length === 1;
  const assertionSigned = childrenNamed(assertion, SAML_NS.dsig, 'Signature').length === 1;
  if ((policy === 'assertion' || policy === 'both') && !assertionSigned) invalid('assertion_signature_missing');
  if ((policy === 'response' || policy === 'both') && !responseSigned) invalid('response_signature_missing');
  if (policy === 'assertion_or_response' && !assertionSigned && !responseSigned) invalid('signature_missing');
  return { response, assertion, responseSigned, assertionSigned };
}

function checkStatus(response: Element): void {
  const statuses = childrenNamed(response, SAML_NS.protocol, 'Status');
  const codes = statuses.length === 1 ? childrenNamed(statuses[0] as Element, SAML_NS.protocol, 'StatusCode') : [];
  if (codes.length !== 1) invalid('status_missing');
  if ((codes[0] as Element).getAttribute('Value') !== SUCCESS)
    throw new FederationProtocolError('idp_error', 'status_not_success');
}

function checkSignaturePlacement(document: Document, response: Element, assertion: Element): void {
  const signatures = elementsByLocalName(document, 'Signature');
  const parents = new Set<Node>();
  for (const signature of signatures) {
    const parent = signature.parentNode as Element | null;
    if (signature.namespaceURI !== SAML_NS.dsig || (parent !== response && parent !== assertion) || parents.has(parent))
      invalid('signature_position_invalid');
    parents.add(parent as Element);
    const signedInfo = childrenNamed(signature, SAML_NS.dsig, 'SignedInfo');
    const references =
      signedInfo.length === 1 ? childrenNamed(signedInfo[0] as Element, SAML_NS.dsig, 'Reference') : [];
    const id = (parent as Element).getAttribute('ID');
    if (references.length !== 1 || !id || (references[0] as Element).getAttribute('URI') !== `#${id}`)
      invalid('signature_reference_invalid');
    const transforms = childrenNamed(references[0] as Element, SAML_NS.dsig, 'Transforms').flatMap(childElements);
    if (transforms.length > 2) invalid('transform_not_allowed');
  }
}
