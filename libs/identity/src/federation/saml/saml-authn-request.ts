import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { SAML_NS } from './saml-dom.js';
import type { SamlAuthnRequestInput, SamlIdpSettings, SamlSpSettings } from './saml.types.js';

const deflateRawAsync = promisify(deflateRaw);
const HTTP_POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
// An xs:ID (NCName) with enough room for 256 random bits.
const REQUEST_ID = /^[A-Za-z_][A-Za-z0-9_.-]{15,127}$/;
// SAML bindings §3.4.3: RelayState MUST NOT exceed 80 bytes.
const RELAY_STATE = /^[\x21-\x7E]{1,80}$/;

/**
 * Checks that `ssoUrl` can carry an HTTP-Redirect message as `ssoUrl + '?' + query`: an absolute
 * `http:`/`https:` URL in canonical form (as `new URL` prints it) without credentials, query or
 * fragment. Whether http or a given host is allowed is the outbound policy's decision
 * (environment-dependent), not this function's. Throws
 * `FederationProtocolError('configuration', 'sso_url_invalid')`.
 *
 * @example
 * validateSamlSsoUrl('https://idp.example.com/saml/sso');
 */
export function validateSamlSsoUrl(ssoUrl: string): void {
  let url: URL;
  try {
    url = new URL(ssoUrl);
  } catch {
    throw new FederationProtocolError('configuration', 'sso_url_invalid');
  }
  const plain =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    !ssoUrl.includes('?') &&
    !ssoUrl.includes('#') &&
    (url.href === ssoUrl || url.href === `${ssoUrl}/`);
  if (!plain) throw new FederationProtocolError('configuration', 'sso_url_invalid');
}

/**
 * The HTTP-Redirect binding URL of an unsigned AuthnRequest (ID = `input.requestId`,
 * IssueInstant = `input.now`, Destination = `idp.ssoUrl`, AssertionConsumerServiceURL =
 * `sp.acsUrl` with the HTTP-POST protocol binding, Issuer = `sp.spEntityId`, NameIDPolicy
 * AllowCreate without a Format). The XML is built with the `@xmldom/xmldom` DOM (no string
 * templates), raw-deflated and base64-encoded: `idp.ssoUrl + '?SAMLRequest=…&RelayState=…'`.
 * Throws `FederationProtocolError('configuration', …)` for an unusable SSO URL, a request ID that
 * is not a 16..128-char xs:ID, or a RelayState that is not 1..80 printable ASCII characters.
 *
 * @example
 * const location = await buildAuthnRequestUrl(sp, idp, { requestId, relayState: selector, now });
 */
export async function buildAuthnRequestUrl(
  sp: SamlSpSettings,
  idp: SamlIdpSettings,
  input: SamlAuthnRequestInput,
): Promise<string> {
  validateSamlSsoUrl(idp.ssoUrl);
  if (!REQUEST_ID.test(input.requestId)) throw new FederationProtocolError('configuration', 'request_id_invalid');
  if (!RELAY_STATE.test(input.relayState)) throw new FederationProtocolError('configuration', 'relay_state_invalid');
  const xml = authnRequestXml(sp, idp, input);
  const deflated = await deflateRawAsync(Buffer.from(xml, 'utf8'));
  const query = new URLSearchParams({ SAMLRequest: deflated.toString('base64'), RelayState: input.relayState });
  return `${idp.ssoUrl}?${query.toString()}`;
}

function authnRequestXml(sp: SamlSpSettings, idp: SamlIdpSettings, input: SamlAuthnRequestInput): string {
  const document = new DOMImplementation().createDocument(SAML_NS.protocol, 'samlp:AuthnRequest', null);
  const request = document.documentElement;
  request.setAttribute('ID', input.requestId);
  request.setAttribute('Version', '2.0');
  request.setAttribute('IssueInstant', input.now.toISOString());
  request.setAttribute('Destination', idp.ssoUrl);
  request.setAttribute('AssertionConsumerServiceURL', sp.acsUrl);
  request.setAttribute('ProtocolBinding', HTTP_POST_BINDING);
  const issuer = document.createElementNS(SAML_NS.assertion, 'saml:Issuer');
  issuer.appendChild(document.createTextNode(sp.spEntityId));
  request.appendChild(issuer);
  const nameIdPolicy = document.createElementNS(SAML_NS.protocol, 'samlp:NameIDPolicy');
  nameIdPolicy.setAttribute('AllowCreate', 'true');
  request.appendChild(nameIdPolicy);
  return new XMLSerializer().serializeToString(document);
}
