/**
 * Why a federation protocol step failed. It never carries provider text to a response: the routes
 * answer `invalid_credentials` (401) for `idp_error` and `token_invalid`, `service_unavailable`
 * (503) for `unavailable`, and `request_invalid` (400, registration) or 503 (sign-in) for
 * `configuration`.
 *
 * @example
 * const failure: FederationFailure = 'token_invalid';
 */
export type FederationFailure =
  /** The IdP answered with an error (OIDC `error=…`, a SAML status other than Success). */
  | 'idp_error'
  /** Any ID-token, assertion, signature, binding, time or audience check. */
  | 'token_invalid'
  /** Discovery or metadata unusable (wrong issuer, missing endpoint, disallowed origin, no S256, …). */
  | 'configuration'
  /** Network, timeout, 5xx or oversized answer. */
  | 'unavailable';

/**
 * A failed federation protocol step: `failure` decides the HTTP answer, `check` names the check
 * that failed (e.g. `issuer_mismatch`, `xsw_multiple_assertions`) for tests and logs. Neither
 * contains token, assertion or provider content.
 *
 * @example
 * throw new FederationProtocolError('token_invalid', 'nonce_mismatch');
 */
export class FederationProtocolError extends Error {
  override name = 'FederationProtocolError';

  constructor(
    readonly failure: FederationFailure,
    readonly check: string,
  ) {
    super(`federation ${failure}: ${check}`);
  }
}
