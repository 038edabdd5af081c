import { describe, expect, it } from '@jest/globals';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { assertTransactionSecret, checkCallbackQuery, type CallbackExpectations } from './oidc-callback.checks.js';

const STATE = 's'.repeat(43);
const ISSUER = 'https://idp.example.com';
const expected: CallbackExpectations = {
  expectedState: STATE,
  issuer: ISSUER,
  issParameterSupported: true,
  allowMissingIssParameter: false,
};

function failure(query: string, overrides: Partial<CallbackExpectations> = {}): { failure: string; check: string } {
  try {
    checkCallbackQuery(new URLSearchParams(query), { ...expected, ...overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(FederationProtocolError);
    const { failure: kind, check } = error as FederationProtocolError;
    return { failure: kind, check };
  }
  throw new Error('expected a refusal');
}

describe('checkCallbackQuery', () => {
  const iss = `iss=${encodeURIComponent(ISSUER)}`;

  it('returns the code of a complete answer', () => {
    expect(checkCallbackQuery(new URLSearchParams(`code=abc&state=${STATE}&${iss}`), expected)).toBe('abc');
  });

  it('binds an IdP error to our state first: a foreign state is a state mismatch, not an IdP error', () => {
    expect(failure(`error=access_denied&state=other&${iss}`)).toEqual({
      failure: 'token_invalid',
      check: 'state_mismatch',
    });
    expect(failure(`error=access_denied&state=${STATE}&${iss}`)).toEqual({
      failure: 'idp_error',
      check: 'idp_error_response',
    });
  });

  it('refuses a missing state, a missing code and an oversized code', () => {
    expect(failure(`code=abc&${iss}`).check).toBe('state_mismatch');
    expect(failure(`state=${STATE}&${iss}`).check).toBe('code_missing');
    expect(failure(`code=${'c'.repeat(8193)}&state=${STATE}&${iss}`).check).toBe('code_missing');
  });

  it('refuses repeated parameters and implicit-flow tokens in the query', () => {
    expect(failure(`code=a&state=${STATE}&state=${STATE}&${iss}`).check).toBe('duplicate_parameter');
    expect(failure(`code=a&state=${STATE}&${iss}&${iss}`).check).toBe('duplicate_parameter');
    expect(failure(`code=a&state=${STATE}&${iss}&id_token=x.y.z`).check).toBe('unexpected_parameter');
  });

  it('applies RFC 9207 only as advertised, relaxing presence only by the named option', () => {
    expect(failure(`code=a&state=${STATE}`).check).toBe('iss_parameter_missing');
    const relaxed = { allowMissingIssParameter: true };
    expect(checkCallbackQuery(new URLSearchParams(`code=a&state=${STATE}`), { ...expected, ...relaxed })).toBe('a');
    expect(failure(`code=a&state=${STATE}&iss=https://evil.example`, relaxed).check).toBe('iss_parameter_mismatch');
    const silent = { issParameterSupported: false };
    expect(checkCallbackQuery(new URLSearchParams(`code=a&state=${STATE}`), { ...expected, ...silent })).toBe('a');
    expect(failure(`code=a&state=${STATE}&iss=https://evil.example`, silent).check).toBe('iss_parameter_mismatch');
  });
});

describe('assertTransactionSecret', () => {
  it('accepts 32 bytes of base64url and refuses anything else', () => {
    expect(() => assertTransactionSecret(Buffer.alloc(32, 7).toString('base64url'), 'state')).not.toThrow();
    expect(() => assertTransactionSecret(Buffer.alloc(31, 7).toString('base64url'), 'state')).toThrow(RangeError);
    expect(() => assertTransactionSecret(`${'a'.repeat(42)}=`, 'nonce')).toThrow(RangeError);
    expect(() => assertTransactionSecret('a'.repeat(44), 'code verifier')).toThrow(RangeError);
  });
});
