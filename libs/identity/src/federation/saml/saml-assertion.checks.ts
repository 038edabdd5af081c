import { createHash } from 'node:crypto';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { attributeOrNull, childElements, childrenNamed, parseSamlXml, SAML_NS, soleText } from './saml-dom.js';
import type { SamlResponseShape } from './saml-response.structure.js';
import type { SamlIdentity, SamlIdpSettings, SamlPolicy, SamlSpSettings } from './saml.types.js';

/** What a response must be bound to: our registration, the started request and the clock. */
export interface SamlBinding {
  readonly sp: SamlSpSettings;
  readonly idp: SamlIdpSettings;
  readonly policy: SamlPolicy;
  readonly expectedRequestId: string;
  readonly now: Date;
}

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const ENTITY_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:entity';
const TRANSIENT_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';
const SUBJECT_MAX_LENGTH = 1024;
// SAML core §2.5.1: a condition we do not understand makes the assertion indeterminate → refused.
const KNOWN_CONDITIONS = new Set(['AudienceRestriction', 'OneTimeUse', 'ProxyRestriction']);
// xs:dateTime in UTC, as SAML core §1.3.3 requires; offsets and local times are refused.
const SAML_INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?Z$/;
// A subject is an identifier: control characters are refused.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F]/;

const invalid = (check: string): never => {
  throw new FederationProtocolError('token_invalid', check);
};

/**
 * Response-level bindings, read from the root Response. When the policy made node-saml verify the
 * Response signature, that root is the signed element (its signature must reference the root, IDs
 * are unique and no second Response exists), so these attributes are covered; otherwise they are
 * unsigned and only ever refuse: Destination (required when the Response is signed) = ACS URL,
 * InResponseTo = the expected request ID, Issuer (when present) = the IdP entity ID.
 */
export function checkResponseBinding(shape: SamlResponseShape, binding: SamlBinding): void {
  const { response, responseSigned } = shape;
  const destination = attributeOrNull(response, 'Destination');
  if (destination === null && responseSigned) invalid('destination_missing');
  if (destination !== null && destination !== binding.sp.acsUrl) invalid('destination_mismatch');
  if (attributeOrNull(response, 'InResponseTo') !== binding.expectedRequestId) invalid('in_response_to_mismatch');
  const issuers = childrenNamed(response, SAML_NS.assertion, 'Issuer');
  if (issuers.length > 1) invalid('issuer_mismatch');
  if (issuers.length === 1) checkIssuer(issuers[0] as Element, binding);
}

/**
 * Reads the identity from the assertion XML node-saml verified (`profile.getAssertionXml()`), parsed
 * again with `@xmldom/xmldom`, and enforces every assertion rule ourselves against `binding.now`:
 * the verified assertion is the envelope's one Assertion (same ID), Version 2.0, Issuer, exactly one
 * NameID (a single text node), one bearer SubjectConfirmation with Recipient = ACS URL,
 * InResponseTo = expected request ID and a live NotOnOrAfter, Conditions with NotBefore and
 * NotOnOrAfter (skewed) and no condition beyond AudienceRestriction / OneTimeUse /
 * ProxyRestriction, every AudienceRestriction naming our SP entity ID, a NameID that is not
 * transient (it must key a link), a lifetime (NotOnOrAfter − IssueInstant) within the policy, an
 * IssueInstant not in the future, and at least one AuthnStatement.
 */
export function readVerifiedAssertion(
  verifiedXml: string,
  shape: SamlResponseShape,
  binding: SamlBinding,
): SamlIdentity {
  const assertion = parseSamlXml(verifiedXml, 'token_invalid').documentElement;
  if (assertion.namespaceURI !== SAML_NS.assertion || assertion.localName !== 'Assertion')
    invalid('verified_assertion_mismatch');
  const id = assertion.getAttribute('ID');
  if (!id || id !== shape.assertion.getAttribute('ID')) invalid('verified_assertion_mismatch');
  if (assertion.getAttribute('Version') !== '2.0') invalid('version_invalid');
  const issuers = childrenNamed(assertion, SAML_NS.assertion, 'Issuer');
  if (issuers.length !== 1) invalid('issuer_mismatch');
  checkIssuer(issuers[0] as Element, binding);
  const subject = single(assertion, 'Subject', 'subject_invalid');
  const nameId = readNameId(subject);
  const conditionsExpireAt = checkConditions(single(assertion, 'Conditions', 'conditions_missing'), binding);
  const confirmationExpiresAt = checkSubjectConfirmation(subject, binding);
  const issuedAt = instant(assertion.getAttribute('IssueInstant'));
  const maxLifetimeMs = binding.policy.maxAssertionLifetimeSeconds * 1000;
  if (Math.max(conditionsExpireAt, confirmationExpiresAt) - issuedAt > maxLifetimeMs)
    invalid('assertion_lifetime_exceeded');
  if (issuedAt > binding.now.getTime() + skewMs(binding)) invalid('issued_in_future');
  if (childrenNamed(assertion, SAML_NS.assertion, 'AuthnStatement').length === 0) invalid('authn_statement_missing');
  return {
    issuer: binding.idp.idpEntityId,
    subject: nameId,
    assertionExpiresAt: new Date(Math.min(conditionsExpireAt, confirmationExpiresAt)),
    replayDigest: createHash('sha256')
      .update(id as string, 'utf8')
      .digest('base64url'),
  };
}

function checkIssuer(issuer: Element, binding: SamlBinding): void {
  if (soleText(issuer) !== binding.idp.idpEntityId) invalid('issuer_mismatch');
  const format = attributeOrNull(issuer, 'Format');
  if (format !== null && format !== ENTITY_FORMAT) invalid('issuer_mismatch');
}

function readNameId(subject: Element): string {
  if (childrenNamed(subject, SAML_NS.assertion, 'EncryptedID').length > 0) invalid('encrypted_id_unsupported');
  const nameIds = childrenNamed(subject, SAML_NS.assertion, 'NameID');
  if (nameIds.length !== 1) invalid('subject_invalid');
  const value = soleText(nameIds[0] as Element);
  if (value === null || value.length === 0 || value.length > SUBJECT_MAX_LENGTH) return invalid('subject_invalid');
  if (value.trim() !== value || CONTROL.test(value)) invalid('subject_invalid');
  // A transient NameID changes at every sign-in: it cannot key a link (JIT would mint a user each time).
  if (nameIds[0]?.getAttribute('Format') === TRANSIENT_FORMAT) invalid('subject_transient');
  return value;
}

/** Returns the Conditions' NotOnOrAfter (ms). */
function checkConditions(conditions: Element, binding: SamlBinding): number {
  const notBefore = instant(attributeOrNull(conditions, 'NotBefore'));
  const notOnOrAfter = instant(attributeOrNull(conditions, 'NotOnOrAfter'));
  checkWindow(notBefore, notOnOrAfter, binding, 'expired');
  const unknown = childElements(conditions).some(
    (condition) => condition.namespaceURI !== SAML_NS.assertion || !KNOWN_CONDITIONS.has(condition.localName ?? ''),
  );
  if (unknown) invalid('condition_unsupported');
  const restrictions = childrenNamed(conditions, SAML_NS.assertion, 'AudienceRestriction');
  if (restrictions.length === 0) invalid('audience_mismatch');
  for (const restriction of restrictions) {
    const audiences = childrenNamed(restriction, SAML_NS.assertion, 'Audience').map(soleText);
    if (!audiences.includes(binding.sp.spEntityId)) invalid('audience_mismatch');
  }
  return notOnOrAfter;
}

/** Exactly one bearer confirmation, bound to our ACS URL and request; returns its NotOnOrAfter (ms). */
function checkSubjectConfirmation(subject: Element, binding: SamlBinding): number {
  const confirmations = childrenNamed(subject, SAML_NS.assertion, 'SubjectConfirmation');
  const bearers = confirmations.filter((confirmation) => confirmation.getAttribute('Method') === BEARER);
  if (bearers.length !== 1 || confirmations.length !== 1) invalid('subject_confirmation_invalid');
  const data = single(bearers[0] as Element, 'SubjectConfirmationData', 'subject_confirmation_invalid');
  if (attributeOrNull(data, 'Recipient') !== binding.sp.acsUrl) invalid('recipient_mismatch');
  if (attributeOrNull(data, 'InResponseTo') !== binding.expectedRequestId) invalid('subject_in_response_to_mismatch');
  const notBefore = attributeOrNull(data, 'NotBefore');
  const notOnOrAfter = instant(attributeOrNull(data, 'NotOnOrAfter'));
  checkWindow(notBefore === null ? null : instant(notBefore), notOnOrAfter, binding, 'subject_confirmation_expired');
  return notOnOrAfter;
}

/** `NotBefore ≤ now + skew` and `now − skew < NotOnOrAfter` (SAML core §2.5.1.2, with skew). */
function checkWindow(notBefore: number | null, notOnOrAfter: number, binding: SamlBinding, expiredCheck: string): void {
  const now = binding.now.getTime();
  if (notBefore !== null && now + skewMs(binding) < notBefore) invalid('not_yet_valid');
  if (now - skewMs(binding) >= notOnOrAfter) invalid(expiredCheck);
}

function skewMs(binding: SamlBinding): number {
  return binding.policy.clockSkewSeconds * 1000;
}

function single(parent: Element, localName: string, check: string): Element {
  const found = childrenNamed(parent, SAML_NS.assertion, localName);
  if (found.length !== 1) invalid(check);
  return found[0] as Element;
}

/** A strict UTC xs:dateTime in ms; fractions beyond milliseconds are truncated. */
function instant(value: string | null): number {
  const match = value === null ? null : SAML_INSTANT.exec(value);
  if (match === null) return invalid('time_invalid');
  const ms = Date.parse(`${match[1]}${(match[2] ?? '').slice(0, 4)}Z`);
  return Number.isNaN(ms) ? invalid('time_invalid') : ms;
}
