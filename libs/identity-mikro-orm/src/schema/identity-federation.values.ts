/* The closed value sets of the federation registration columns (issue 14), in the order of the migration's CHECKs. */

/**
 * SAML signature policies of a provider registration (`identity-http.md` §6).
 *
 * @example
 * SAML_SIGNATURE_POLICIES.includes(value as never); // true for a stored value
 */
export const SAML_SIGNATURE_POLICIES = ['assertion', 'response', 'both', 'assertion_or_response'] as const;
/** A {@link SAML_SIGNATURE_POLICIES} value. */
export type SamlSignaturePolicyValue = (typeof SAML_SIGNATURE_POLICIES)[number];
