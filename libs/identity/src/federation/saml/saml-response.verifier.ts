import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { checkResponseBinding, readVerifiedAssertion, type SamlBinding } from './saml-assertion.checks.js';
import { parseSamlXml } from './saml-dom.js';
import { checkSignatureAlgorithms, checkResponseStructure } from './saml-response.structure.js';
import { guardSamlXml } from './saml-xml.guard.js';
import {
  SAML_MAX_ASSERTION_LIFETIME_SECONDS,
  SAML_MAX_CLOCK_SKEW_SECONDS,
  SAML_MAX_IDP_CERTIFICATES,
  type SamlIdentity,
  type SamlIdpSettings,
  type SamlPolicy,
  type SamlResponseInput,
  type SamlSpSettings,
} from './saml.types.js';

/** Largest `SAMLResponse` form value (identity-model: SAML form ≤ 8 MiB). */
export const SAML_RESPONSE_MAX_FORM_CHARS = 8 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ASCII_WHITESPACE = /[\t\n\r ]/g;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Verifies an HTTP-POST `SAMLResponse` for one registration and returns the asserted identity, or
 * throws {@link FederationProtocolError}: `idp_error` for a non-Success status, `configuration`
 * for unusable settings, `token_invalid` for everything else (`check` names the failed rule).
 *
 * Order: strict base64 + UTF-8 decoding → {@link guardSamlXml} (before any library sees the
 * document) → one `@xmldom/xmldom` parse and the structural rules (algorithm allow-list, status,
 * one Assertion by position, signature placement, the policy's signatures present) → node-saml
 * verifies the signatures with the registration's certificates only and yields the verified
 * assertion XML → our own checks on that XML alone (issuer, audience, recipient, InResponseTo, time
 * window with skew against `input.now`, lifetime ≤ 10 min) plus the Response's Destination and
 * InResponseTo. node-saml's own InResponseTo cache, audience and wall-clock checks are switched
 * off: it would read `Date.now`, and these rules are ours to enforce.
 *
 * Not supported, refused: encrypted assertions and NameIDs, ECDSA signatures (allowed by policy but
 * xml-crypto 6 cannot verify them, so they fail closed as `signature_invalid`).
 *
 * The caller still records the replay receipt (`replayDigest`) in the store, which fails closed.
 *
 * @example
 * const identity = await verifySamlResponse(sp, idp, DEFAULT_SAML_POLICY, {
 *   samlResponse: form.SAMLResponse,
 *   expectedRequestId: transaction.requestId,
 *   now: runtime.clock.now(),
 * });
 */
export async function verifySamlResponse(
  sp: SamlSpSettings,
  idp: SamlIdpSettings,
  policy: SamlPolicy,
  input: SamlResponseInput,
): Promise<SamlIdentity> {
  checkSettings(idp, policy);
  const xml = decodeSamlResponse(input.samlResponse);
  const verdict = guardSamlXml(xml);
  if (!verdict.ok) throw new FederationProtocolError('token_invalid', verdict.check);
  const document = parseSamlXml(xml, 'token_invalid');
  checkSignatureAlgorithms(document);
  const shape = checkResponseStructure(document, idp.signaturePolicy);
  const binding: SamlBinding = { sp, idp, policy, expectedRequestId: input.expectedRequestId, now: input.now };
  checkResponseBinding(shape, binding);
  const verifiedAssertionXml = await verifySignatures(sp, idp, xml);
  return readVerifiedAssertion(verifiedAssertionXml, shape, binding);
}

function checkSettings(idp: SamlIdpSettings, policy: SamlPolicy): void {
  const count = idp.idpCertificatesPem.length;
  if (count === 0) throw new FederationProtocolError('configuration', 'idp_certificate_missing');
  if (count > SAML_MAX_IDP_CERTIFICATES)
    throw new FederationProtocolError('configuration', 'idp_certificates_too_many');
  const skewOk =
    Number.isInteger(policy.clockSkewSeconds) &&
    policy.clockSkewSeconds >= 0 &&
    policy.clockSkewSeconds <= SAML_MAX_CLOCK_SKEW_SECONDS;
  const lifetimeOk =
    Number.isInteger(policy.maxAssertionLifetimeSeconds) &&
    policy.maxAssertionLifetimeSeconds >= 1 &&
    policy.maxAssertionLifetimeSeconds <= SAML_MAX_ASSERTION_LIFETIME_SECONDS;
  if (!skewOk || !lifetimeOk) throw new FederationProtocolError('configuration', 'saml_policy_invalid');
}

/** Strict base64 (ASCII whitespace tolerated: IdPs wrap lines) of strict UTF-8. */
function decodeSamlResponse(samlResponse: string): string {
  if (samlResponse.length > SAML_RESPONSE_MAX_FORM_CHARS)
    throw new FederationProtocolError('token_invalid', 'response_too_large');
  const compact = samlResponse.replace(ASCII_WHITESPACE, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !BASE64.test(compact))
    throw new FederationProtocolError('token_invalid', 'response_encoding_invalid');
  try {
    return utf8.decode(Buffer.from(compact, 'base64'));
  } catch {
    throw new FederationProtocolError('token_invalid', 'response_encoding_invalid');
  }
}

/**
 * node-saml's verified-XML path (`getVerifiedXml`: xml-crypto's signed references) with the
 * policy mapped onto `wantAuthnResponseSigned` / `wantAssertionsSigned`. Its own audience,
 * InResponseTo cache and timestamp checks are disabled (`audience: false`, `never`,
 * `acceptedClockSkewMs: -1`); no decryption key, no request signing.
 */
async function verifySignatures(sp: SamlSpSettings, idp: SamlIdpSettings, xml: string): Promise<string> {
  const policy = idp.signaturePolicy;
  const saml = new SAML({
    callbackUrl: sp.acsUrl,
    issuer: sp.spEntityId,
    idpIssuer: idp.idpEntityId,
    entryPoint: idp.ssoUrl,
    idpCert: [...idp.idpCertificatesPem],
    audience: false,
    validateInResponseTo: ValidateInResponseTo.never,
    acceptedClockSkewMs: -1,
    maxAssertionAgeMs: 0,
    wantAuthnResponseSigned: policy === 'response' || policy === 'both',
    wantAssertionsSigned: policy === 'assertion' || policy === 'both',
  });
  let assertionXml: string | undefined;
  try {
    // The exact characters the guard inspected, re-encoded: node-saml decodes them back to `xml`.
    const { profile } = await saml.validatePostResponseAsync({
      SAMLResponse: Buffer.from(xml, 'utf8').toString('base64'),
    });
    assertionXml = profile?.getAssertionXml?.();
  } catch {
    // node-saml's messages may quote document content: never propagated.
    throw new FederationProtocolError('token_invalid', 'signature_invalid');
  }
  if (typeof assertionXml !== 'string') throw new FederationProtocolError('token_invalid', 'signature_invalid');
  return assertionXml;
}
