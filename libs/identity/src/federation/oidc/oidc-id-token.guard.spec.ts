import { describe, expect, it } from '@jest/globals';
import { FederationProtocolError } from '../federation-protocol.error.js';
import { inspectIdToken, sha256Base64Url, type IdTokenExpectations } from './oidc-id-token.guard.js';
import { DEFAULT_OIDC_POLICY } from './oidc.types.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const NONCE = 'n'.repeat(43);
const expected: IdTokenExpectations = {
  issuer: 'https://idp.example.com',
  clientId: 'rp',
  algorithms: ['ES256', 'RS256'],
  policy: DEFAULT_OIDC_POLICY,
  nowMs: NOW,
  nonceDigest: sha256Base64Url(NONCE),
};
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** A structurally complete token; the guard never verifies signatures (openid-client does). */
function token(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): string {
  const iat = NOW / 1000;
  const payload = { iss: expected.issuer, aud: 'rp', sub: 'user-1', iat, exp: iat + 300, nonce: NONCE, ...claims };
  for (const [name, value] of Object.entries(payload))
    if (value === undefined) delete (payload as Record<string, unknown>)[name];
  return `${b64(JSON.stringify({ alg: 'ES256', kid: 'k1', ...header }))}.${b64(JSON.stringify(payload))}.c2ln`;
}

function checkOf(idToken: string): string | undefined {
  try {
    inspectIdToken(idToken, expected);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(FederationProtocolError);
    expect((error as FederationProtocolError).failure).toBe('token_invalid');
    return (error as FederationProtocolError).check;
  }
}

describe('inspectIdToken', () => {
  it('returns the checked claims, kid and nonce of a well-formed token', () => {
    expect(inspectIdToken(token({ jti: 'j1' }), expected)).toEqual({
      alg: 'ES256',
      kid: 'k1',
      nonce: NONCE,
      claims: { issuer: expected.issuer, subject: 'user-1', expiresAtSeconds: NOW / 1000 + 300, jti: 'j1' },
    });
  });

  it.each([
    ['an encrypted (JWE) token', 'a.b.c.d.e', 'id_token_encrypted'],
    ['two segments', 'a.b', 'id_token_malformed'],
    ['a header that is not JSON', `${b64('{alg')}.${b64('{}')}.c2ln`, 'id_token_malformed'],
    ['a header that is an array', `${b64('["ES256"]')}.${b64('{}')}.c2ln`, 'id_token_malformed'],
    ['PS256', token({}, { alg: 'PS256' }), 'alg_not_allowed'],
    ['ES512', token({}, { alg: 'ES512' }), 'alg_not_allowed'],
    ['a crit header', token({}, { crit: ['exp'] }), 'crit_unsupported'],
    ['a numeric kid', token({}, { kid: 7 }), 'kid_invalid'],
    ['an empty audience list', token({ aud: [] }), 'audience_invalid'],
    ['a numeric audience', token({ aud: 42 }), 'audience_invalid'],
    ['a subject of 256 characters', token({ sub: 'x'.repeat(256) }), 'subject_invalid'],
    ['an empty subject', token({ sub: '' }), 'subject_invalid'],
    ['a string exp', token({ exp: String(NOW / 1000 + 300) }), 'exp_missing'],
    ['exp before iat', token({ exp: NOW / 1000 - 1 }), 'lifetime_invalid'],
    ['an empty jti', token({ jti: '' }), 'jti_invalid'],
    ['a numeric nonce', token({ nonce: 5 }), 'nonce_mismatch'],
  ])('refuses %s', (_name, idToken, check) => {
    expect(checkOf(idToken)).toBe(check);
  });

  it('refuses an algorithm the provider does not advertise even when we accept it', () => {
    expect(() => inspectIdToken(token({}, { alg: 'RS256' }), { ...expected, algorithms: ['ES256'] })).toThrow(
      expect.objectContaining({ check: 'alg_not_allowed' }),
    );
  });

  it('applies a tighter policy lifetime', () => {
    const policy = { ...DEFAULT_OIDC_POLICY, maxIdTokenLifetimeSeconds: 60 };
    expect(() => inspectIdToken(token(), { ...expected, policy })).toThrow(
      expect.objectContaining({ check: 'lifetime_too_long' }),
    );
  });

  it('keeps no token content in the error', () => {
    const secretSubject = 'subject-that-must-not-leak';
    try {
      inspectIdToken(token({ sub: secretSubject, iss: 'https://evil.example' }), expected);
    } catch (error) {
      expect(String((error as Error).message)).toBe('federation token_invalid: issuer_mismatch');
      expect(JSON.stringify(error)).not.toContain(secretSubject);
    }
    expect.assertions(2);
  });
});
