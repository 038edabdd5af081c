import { ScimError } from '../../../libs/identity/src/scim/scim.errors.js';

/**
 * Runs `run` and returns the status and `scimType` of the `ScimError` it throws; anything else
 * (no error, another error) fails the test.
 *
 * @example
 * expect(scimFailure(() => decodeScimUser([]))).toEqual({ status: 400, scimType: 'invalidSyntax' });
 */
export function scimFailure(run: () => unknown): { status: number; scimType: string | undefined } {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, scimType: error.scimType };
    throw error;
  }
  throw new Error('expected a ScimError');
}
