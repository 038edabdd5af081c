import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { SAML_TEST_KEYS } from '../../../../../test/support/federation/saml-idp.js';
import {
  expectFederationError,
  SAML_TEST_NOW,
  SamlSpHarness,
} from '../../../../../test/support/federation/saml-sp-harness.js';
import type { SamlSignaturePolicy } from '../../store/identity-federation.records.js';

const harness = new SamlSpHarness();
const at = (offsetMs: number) => new Date(SAML_TEST_NOW.getTime() + offsetMs);
const SKEW_MS = 30_000;

describe('verifySamlResponse: happy paths per signature policy', () => {
  const cases: readonly [SamlSignaturePolicy, 'assertion' | 'response' | 'both'][] = [
    ['assertion', 'assertion'],
    ['assertion', 'both'],
    ['response', 'response'],
    ['response', 'both'],
    ['both', 'both'],
    ['assertion_or_response', 'assertion'],
    ['assertion_or_response', 'response'],
    ['assertion_or_response', 'both'],
  ];

  it.each(cases)('policy %s accepts a response with a valid %s signature', async (policy, sign) => {
    const identity = await harness.verify(
      harness.xml({ sign, assertionId: '_assertion-1', nameId: 'alice@corp.test' }),
      policy,
    );
    expect(identity).toEqual({
      issuer: harness.idp.entityId,
      subject: 'alice@corp.test',
      assertionExpiresAt: at(5 * 60_000),
      replayDigest: createHash('sha256').update('_assertion-1').digest('base64url'),
    });
  });

  it('reports the earlier of the Conditions and SubjectConfirmationData expiries', async () => {
    const identity = await harness.verify(harness.xml({ subjectNotOnOrAfter: at(120_000) }), 'both');
    expect(identity.assertionExpiresAt).toEqual(at(120_000));
  });

  it('accepts a signature by any trusted certificate (rotation)', async () => {
    const certificates = [SAML_TEST_KEYS.untrusted.certificatePem, SAML_TEST_KEYS.idp.certificatePem];
    await expect(harness.verify(harness.xml(), 'both', { certificates })).resolves.toMatchObject({
      subject: 'alice@idp.test',
    });
  });

  it('accepts a line-wrapped base64 form value', async () => {
    const wrapped = Buffer.from(harness.xml()).toString('base64').replace(/.{76}/g, '$&\r\n');
    await expect(harness.verify({ form: wrapped }, 'both')).resolves.toMatchObject({ subject: 'alice@idp.test' });
  });

  it('accepts an unsigned Response without Destination when the assertion is signed', async () => {
    await expect(
      harness.verify(harness.xml({ sign: 'assertion', destination: null }), 'assertion'),
    ).resolves.toMatchObject({
      subject: 'alice@idp.test',
    });
  });

  it('keeps the NameID exactly as signed (no trimming, no case folding)', async () => {
    const identity = await harness.verify(harness.xml({ nameId: 'Alice.O+Brien@Corp.Test' }), 'both');
    expect(identity.subject).toBe('Alice.O+Brien@Corp.Test');
  });
});

describe('verifySamlResponse: signature policy', () => {
  it('rejects an unsigned assertion under the assertion policy (even inside a signed Response)', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ sign: 'response' }), 'assertion'),
      'token_invalid',
      'assertion_signature_missing',
    );
  });

  it('rejects an unsigned Response under the response policy', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ sign: 'assertion' }), 'response'),
      'token_invalid',
      'response_signature_missing',
    );
  });

  it('rejects a response with only the assertion signed under the both policy', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ sign: 'assertion' }), 'both'),
      'token_invalid',
      'response_signature_missing',
    );
  });

  it('rejects a response with only the Response signed under the both policy', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ sign: 'response' }), 'both'),
      'token_invalid',
      'assertion_signature_missing',
    );
  });

  it('rejects a completely unsigned response under assertion_or_response', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ sign: 'none' }), 'assertion_or_response'),
      'token_invalid',
      'signature_missing',
    );
  });

  it('rejects an assertion altered after signing', async () => {
    const xml = harness
      .xml({ sign: 'assertion', nameId: 'alice@idp.test' })
      .replace('>alice@idp.test<', '>mallory@idp.test<');
    await expectFederationError(harness.verify(xml, 'assertion'), 'token_invalid', 'signature_invalid');
  });

  it('rejects a Response altered after signing', async () => {
    const xml = harness
      .xml({ sign: 'response', nameId: 'alice@idp.test' })
      .replace('>alice@idp.test<', '>mallory@idp.test<');
    await expectFederationError(harness.verify(xml, 'response'), 'token_invalid', 'signature_invalid');
  });

  it('rejects a signature by a certificate the registration does not trust', async () => {
    const xml = harness.xml({ signer: 'untrusted' });
    await expectFederationError(harness.verify(xml, 'assertion_or_response'), 'token_invalid', 'signature_invalid');
  });

  it('allows ECDSA-SHA256 by policy but fails closed: xml-crypto 6 cannot verify it', async () => {
    const xml = harness.xml({ sign: 'assertion', signatureAlgorithm: 'ecdsa-sha256' });
    expect(xml).toContain('Algorithm="http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"');
    const certificates = [SAML_TEST_KEYS.ec.certificatePem];
    await expectFederationError(
      harness.verify(xml, 'assertion', { certificates }),
      'token_invalid',
      'signature_invalid',
    );
  });

  it('refuses settings without any trusted certificate as a configuration failure', async () => {
    await expectFederationError(
      harness.verify(harness.xml(), 'both', { certificates: [] }),
      'configuration',
      'idp_certificate_missing',
    );
  });

  it('refuses a policy beyond the contract (skew > 300 s, lifetime > 600 s)', async () => {
    const wide = { clockSkewSeconds: 301, maxAssertionLifetimeSeconds: 600 };
    const long = { clockSkewSeconds: 30, maxAssertionLifetimeSeconds: 601 };
    await expectFederationError(
      harness.verify(harness.xml(), 'both', { policy: wide }),
      'configuration',
      'saml_policy_invalid',
    );
    await expectFederationError(
      harness.verify(harness.xml(), 'both', { policy: long }),
      'configuration',
      'saml_policy_invalid',
    );
  });
});

describe('verifySamlResponse: bindings we enforce ourselves', () => {
  it('rejects the wrong audience', async () => {
    const xml = harness.xml({ audience: 'https://other-sp.test/metadata' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'audience_mismatch');
  });

  it('rejects the wrong recipient', async () => {
    const xml = harness.xml({ recipient: 'https://other-sp.test/acs' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'recipient_mismatch');
  });

  it('rejects the wrong destination', async () => {
    const xml = harness.xml({ destination: 'https://other-sp.test/acs' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'destination_mismatch');
  });

  it('rejects a signed Response without Destination', async () => {
    await expectFederationError(
      harness.verify(harness.xml({ destination: null }), 'both'),
      'token_invalid',
      'destination_missing',
    );
  });

  it('rejects the wrong issuer', async () => {
    const xml = harness.xml({ issuer: 'https://evil-idp.test/metadata' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'issuer_mismatch');
  });

  it('rejects the wrong issuer on the assertion under a correct Response issuer', async () => {
    const xml = harness.xml({ assertionIssuer: 'https://evil-idp.test/metadata' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'issuer_mismatch');
  });

  it('rejects a transient NameID (it cannot key a link)', async () => {
    const xml = harness.xml({ nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'subject_transient');
  });

  it('accepts OneTimeUse and rejects a condition it does not understand', async () => {
    await expect(
      harness.verify(harness.xml({ extraConditionsXml: '<saml:OneTimeUse/>' }), 'both'),
    ).resolves.toBeDefined();
    const custom = '<saml:Condition xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="x:Geo"/>';
    await expectFederationError(
      harness.verify(harness.xml({ extraConditionsXml: custom }), 'both'),
      'token_invalid',
      'condition_unsupported',
    );
  });

  it('rejects an InResponseTo mismatch on the Response', async () => {
    const xml = harness.xml({ responseInResponseTo: '_another-request-0000000' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'in_response_to_mismatch');
  });

  it('rejects a Response without InResponseTo (IdP-initiated)', async () => {
    const xml = harness.xml({ responseInResponseTo: null });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'in_response_to_mismatch');
  });

  it('rejects an InResponseTo mismatch on the SubjectConfirmationData', async () => {
    const xml = harness.xml({ subjectInResponseTo: '_another-request-0000000' });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'subject_in_response_to_mismatch');
  });

  it('rejects a response to another request than the one this browser started', async () => {
    const verdict = harness.verify(harness.xml(), 'both', { expectedRequestId: '_my-own-request-000000' });
    await expectFederationError(verdict, 'token_invalid', 'in_response_to_mismatch');
  });

  it('answers a non-Success status as an IdP error', async () => {
    const xml = harness.xml({ statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Requester' });
    await expectFederationError(harness.verify(xml, 'both'), 'idp_error', 'status_not_success');
  });
});

describe('verifySamlResponse: time rules (skew 30 s, lifetime ≤ 600 s)', () => {
  const expiry = at(5 * 60_000);

  it('accepts until NotOnOrAfter + skew (exclusive) and rejects from there on', async () => {
    await expect(
      harness.verify(harness.xml(), 'both', { now: new Date(expiry.getTime() + SKEW_MS - 1) }),
    ).resolves.toBeDefined();
    await expectFederationError(
      harness.verify(harness.xml(), 'both', { now: new Date(expiry.getTime() + SKEW_MS) }),
      'token_invalid',
      'expired',
    );
  });

  it('accepts from NotBefore − skew and rejects a not-yet-valid assertion before it', async () => {
    const xml = harness.xml({ notBefore: at(60_000), issueInstant: at(60_000), notOnOrAfter: at(300_000) });
    await expect(harness.verify(xml, 'both', { now: at(60_000 - SKEW_MS) })).resolves.toBeDefined();
    await expectFederationError(
      harness.verify(xml, 'both', { now: at(60_000 - SKEW_MS - 1) }),
      'token_invalid',
      'not_yet_valid',
    );
  });

  it('rejects an expired SubjectConfirmationData even when the Conditions are still valid', async () => {
    const xml = harness.xml({ subjectNotOnOrAfter: at(60_000) });
    await expectFederationError(
      harness.verify(xml, 'both', { now: at(60_000 + SKEW_MS) }),
      'token_invalid',
      'subject_confirmation_expired',
    );
  });

  it('accepts a lifetime of exactly 600 s and rejects 601 s', async () => {
    await expect(harness.verify(harness.xml({ notOnOrAfter: at(600_000) }), 'both')).resolves.toBeDefined();
    await expectFederationError(
      harness.verify(harness.xml({ notOnOrAfter: at(601_000) }), 'both'),
      'token_invalid',
      'assertion_lifetime_exceeded',
    );
  });

  it('applies the lifetime limit to the SubjectConfirmationData too', async () => {
    const xml = harness.xml({ notOnOrAfter: at(300_000), subjectNotOnOrAfter: at(3_600_000) });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'assertion_lifetime_exceeded');
  });

  it('rejects an assertion issued beyond the skew in the future', async () => {
    const xml = harness.xml({ issueInstant: at(SKEW_MS + 1), notBefore: at(0), notOnOrAfter: at(300_000) });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'issued_in_future');
  });

  it('rejects times that are not UTC xs:dateTime', async () => {
    const xml = harness.xml({ formatInstant: (instant) => instant.toISOString().replace('Z', '+00:00') });
    await expectFederationError(harness.verify(xml, 'both'), 'token_invalid', 'time_invalid');
  });
});
