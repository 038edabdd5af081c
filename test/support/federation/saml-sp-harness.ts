import { expect } from '@jest/globals';
import type { FederationFailure } from '../../../libs/identity/src/federation/federation-protocol.error.js';
import { verifySamlResponse } from '../../../libs/identity/src/federation/saml/saml-response.verifier.js';
import {
  DEFAULT_SAML_POLICY,
  type SamlIdentity,
  type SamlPolicy,
} from '../../../libs/identity/src/federation/saml/saml.types.js';
import type { SamlSignaturePolicy } from '@tessera/identity';
import { SAML_TEST_SP, SamlTestIdp, toFormValue, type SamlTestResponseOptions } from './saml-idp.js';

/** The frozen instant of SAML unit tests. */
export const SAML_TEST_NOW = new Date('2026-11-26T10:00:00.000Z');
/** The AuthnRequest ID the SP "started" in SAML unit tests. */
export const SAML_TEST_REQUEST_ID = '_r7Kq2Vd9xPz4LmN8bT1cYw6HsE3jUf5gAo0RiQnXeW';

/** What {@link SamlSpHarness.verify} may override. */
export interface SamlVerifyOverrides {
  readonly now?: Date;
  readonly expectedRequestId?: string;
  readonly policy?: SamlPolicy;
  readonly certificates?: readonly string[];
}

/**
 * The SP under test (our verifier with {@link SAML_TEST_SP}) wired to a {@link SamlTestIdp}:
 * `options()` shapes a correct response for the started request, `verify()` runs
 * `verifySamlResponse` on XML or a form value.
 *
 * @example
 * const harness = new SamlSpHarness();
 * await harness.verify(harness.idp.responseXml(harness.options({ sign: 'assertion' })), 'assertion');
 */
export class SamlSpHarness {
  readonly idp = new SamlTestIdp();
  readonly sp = SAML_TEST_SP;

  /** A correct response for {@link SAML_TEST_REQUEST_ID} at {@link SAML_TEST_NOW}, plus overrides. */
  options(overrides: Partial<SamlTestResponseOptions> = {}): SamlTestResponseOptions {
    return {
      requestId: SAML_TEST_REQUEST_ID,
      acsUrl: this.sp.acsUrl,
      audience: this.sp.spEntityId,
      now: SAML_TEST_NOW,
      ...overrides,
    };
  }

  /** Signed XML of a response shaped by {@link options}. */
  xml(overrides: Partial<SamlTestResponseOptions> = {}): string {
    return this.idp.responseXml(this.options(overrides));
  }

  /** Verifies `xml` (or, with `{ form }`, a raw form value) under `signaturePolicy`. */
  verify(
    xml: string | { readonly form: string },
    signaturePolicy: SamlSignaturePolicy,
    overrides: SamlVerifyOverrides = {},
  ): Promise<SamlIdentity> {
    const settings = this.idp.settings(signaturePolicy);
    return verifySamlResponse(
      this.sp,
      overrides.certificates === undefined ? settings : { ...settings, idpCertificatesPem: overrides.certificates },
      overrides.policy ?? DEFAULT_SAML_POLICY,
      {
        samlResponse: typeof xml === 'string' ? toFormValue(xml) : xml.form,
        expectedRequestId: overrides.expectedRequestId ?? SAML_TEST_REQUEST_ID,
        now: overrides.now ?? SAML_TEST_NOW,
      },
    );
  }
}

/** Asserts that `promise` rejects with `FederationProtocolError(failure, check)`. */
export async function expectFederationError(
  promise: Promise<unknown>,
  failure: FederationFailure,
  check: string,
): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'FederationProtocolError', failure, check });
}
