/** Why the authenticator refused, named after the DOMException a browser would raise. */
export type SoftwareAuthenticatorErrorCode = 'InvalidStateError' | 'NotAllowedError' | 'NotSupportedError';

/**
 * Thrown when a real authenticator would refuse the ceremony: an excluded credential is held, no
 * credential matches, or no offered algorithm is supported.
 *
 * @example
 * expect(() => authenticator.getAssertion(options, { origin })).toThrow(SoftwareAuthenticatorError);
 */
export class SoftwareAuthenticatorError extends Error {
  constructor(
    readonly code: SoftwareAuthenticatorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SoftwareAuthenticatorError';
  }
}
