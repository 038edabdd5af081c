import { timingSafeEqual } from 'node:crypto';
import { FederationProtocolError } from '../federation-protocol.error.js';

const TRANSACTION_SECRET = /^[A-Za-z0-9_-]{43}$/;
const SINGLE_VALUED = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'] as const;
const MAX_CODE_LENGTH = 8192;

/**
 * Refuses a transaction value that is not 32 bytes of base64url (43 characters): the caller
 * generates state, nonce and PKCE verifier, and stores the nonce digest, all at this size.
 *
 * @example
 * assertTransactionSecret(input.state, 'state');
 */
export function assertTransactionSecret(value: string, name: string): void {
  if (!TRANSACTION_SECRET.test(value)) {
    throw new RangeError(`OIDC ${name} must be 32 bytes in base64url (43 characters)`);
  }
}

/**
 * What a callback query must match before the code is exchanged.
 *
 * @example
 * checkCallbackQuery(query, { expectedState, issuer, issParameterSupported: true, allowMissingIssParameter: false });
 */
export interface CallbackExpectations {
  readonly expectedState: string;
  readonly issuer: string;
  readonly issParameterSupported: boolean;
  readonly allowMissingIssParameter: boolean;
}

/**
 * Checks the authorization response in the order that binds it to our transaction first: no
 * repeated parameter; `state` equal (constant time) to the stored one; RFC 9207 `iss` (required when
 * advertised unless relaxed by name, equal to the issuer whenever present); then an IdP `error`
 * answer is `idp_error`; then a `code` (1..8192) must be there. Returns the code.
 *
 * @example
 * const code = checkCallbackQuery(input.query, expectations); // throws FederationProtocolError
 */
export function checkCallbackQuery(query: URLSearchParams, expected: CallbackExpectations): string {
  for (const name of SINGLE_VALUED) {
    if (query.getAll(name).length > 1) throw new FederationProtocolError('token_invalid', 'duplicate_parameter');
  }
  const state = query.get('state');
  if (state === null || !constantTimeEqual(state, expected.expectedState)) {
    throw new FederationProtocolError('token_invalid', 'state_mismatch');
  }
  const iss = query.get('iss');
  if (iss === null) {
    if (expected.issParameterSupported && !expected.allowMissingIssParameter) {
      throw new FederationProtocolError('token_invalid', 'iss_parameter_missing');
    }
  } else if (iss !== expected.issuer) {
    throw new FederationProtocolError('token_invalid', 'iss_parameter_mismatch');
  }
  if (query.has('error')) throw new FederationProtocolError('idp_error', 'idp_error_response');
  const code = query.get('code');
  if (code === null || code.length === 0 || code.length > MAX_CODE_LENGTH) {
    throw new FederationProtocolError('token_invalid', 'code_missing');
  }
  for (const name of ['id_token', 'access_token', 'token', 'response']) {
    if (query.has(name)) throw new FederationProtocolError('token_invalid', 'unexpected_parameter');
  }
  return code;
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
