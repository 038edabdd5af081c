import { createHash, timingSafeEqual } from 'node:crypto';
import { parseStrictJson } from '../../http/strict-json.js';
import { FederationProtocolError } from '../federation-protocol.error.js';
import type { OidcIdTokenAlgorithm, OidcPolicy } from './oidc.types.js';

/**
 * The claims of an ID token that passed {@link inspectIdToken}.
 *
 * @example
 * const { subject, expiresAtSeconds } = inspected.claims;
 */
export interface InspectedIdToken {
  readonly alg: OidcIdTokenAlgorithm;
  readonly kid: string | undefined;
  /** The `nonce` claim, known to hash to the stored digest. */
  readonly nonce: string;
  readonly claims: {
    readonly issuer: string;
    readonly subject: string;
    readonly expiresAtSeconds: number;
    readonly jti: string | undefined;
  };
}

/**
 * What an ID token must match.
 *
 * @example
 * inspectIdToken(idToken, { issuer, clientId, algorithms: ['ES256'], policy, nowMs, nonceDigest });
 */
export interface IdTokenExpectations {
  readonly issuer: string;
  readonly clientId: string;
  readonly algorithms: readonly OidcIdTokenAlgorithm[];
  readonly policy: OidcPolicy;
  readonly nowMs: number;
  readonly nonceDigest: string;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const MAX_SUBJECT_LENGTH = 255;

/**
 * base64url SHA-256 of a UTF-8 string (nonce digests, replay digests).
 *
 * @example
 * const nonceDigest = sha256Base64Url(nonce);
 */
export function sha256Base64Url(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/**
 * Our checks on an ID token before openid-client sees it (it then repeats the claim checks and
 * verifies the signature against the JWKS): compact JWS only; header and payload strict JSON
 * (duplicate members refused); `alg` ES256 or RS256 only and advertised (so `none` and HS256 with
 * the client secret never reach a verifier); no `crit`; exact `iss`; `aud` contains the client id;
 * `azp` required with several audiences and equal to the client id whenever present; `sub`
 * 1..255 characters; `iat` and `exp` present, lifetime ≤ the policy's; `exp`, `iat` and `nbf`
 * within the clock skew of the runtime clock; the `nonce` hashes to the stored digest.
 *
 * @example
 * const inspected = inspectIdToken(idToken, expectations); // throws FederationProtocolError('token_invalid', …)
 */
export function inspectIdToken(idToken: string, expected: IdTokenExpectations): InspectedIdToken {
  const parts = idToken.split('.');
  if (parts.length === 5) throw invalid('id_token_encrypted');
  if (parts.length !== 3 || !SEGMENT.test(parts[0]!)) throw invalid('id_token_malformed');
  // The header decides first: `alg: none` (empty signature) or HS256 is refused as such.
  const header = decodeSegment(parts[0]!, 'duplicate_header_member');
  const alg = header['alg'];
  if (typeof alg !== 'string' || !(expected.algorithms as readonly string[]).includes(alg)) {
    throw invalid('alg_not_allowed');
  }
  if (header['crit'] !== undefined) throw invalid('crit_unsupported');
  if (!SEGMENT.test(parts[1]!) || !SEGMENT.test(parts[2]!)) throw invalid('id_token_malformed');
  const kid = header['kid'];
  if (kid !== undefined && typeof kid !== 'string') throw invalid('kid_invalid');
  const claims = decodeSegment(parts[1]!, 'duplicate_claim');
  return {
    alg: alg as OidcIdTokenAlgorithm,
    kid,
    nonce: checkNonce(claims['nonce'], expected.nonceDigest),
    claims: checkClaims(claims, expected),
  };
}

function checkClaims(claims: Record<string, unknown>, expected: IdTokenExpectations): InspectedIdToken['claims'] {
  if (claims['iss'] !== expected.issuer) throw invalid('issuer_mismatch');
  const aud = claims['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : undefined;
  if (audiences === undefined || audiences.length === 0 || !audiences.every((a) => typeof a === 'string')) {
    throw invalid('audience_invalid');
  }
  if (!audiences.includes(expected.clientId)) throw invalid('audience_mismatch');
  const azp = claims['azp'];
  if (audiences.length > 1 && azp === undefined) throw invalid('azp_missing');
  if (azp !== undefined && azp !== expected.clientId) throw invalid('azp_mismatch');
  const sub = claims['sub'];
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) throw invalid('subject_invalid');
  const exp = numericDate(claims['exp'], 'exp_missing');
  const iat = numericDate(claims['iat'], 'iat_missing');
  if (exp <= iat) throw invalid('lifetime_invalid');
  if (exp - iat > expected.policy.maxIdTokenLifetimeSeconds) throw invalid('lifetime_too_long');
  const now = expected.nowMs / 1000;
  const skew = expected.policy.clockSkewSeconds;
  if (exp <= now - skew) throw invalid('expired');
  if (iat > now + skew) throw invalid('issued_in_future');
  if (claims['nbf'] !== undefined && numericDate(claims['nbf'], 'nbf_invalid') > now + skew) {
    throw invalid('not_yet_valid');
  }
  const jti = claims['jti'];
  if (jti !== undefined && (typeof jti !== 'string' || jti.length === 0)) throw invalid('jti_invalid');
  return { issuer: expected.issuer, subject: sub, expiresAtSeconds: exp, jti };
}

function checkNonce(nonce: unknown, nonceDigest: string): string {
  if (typeof nonce !== 'string' || nonce.length === 0) throw invalid('nonce_mismatch');
  const actual = Buffer.from(sha256Base64Url(nonce), 'utf8');
  const stored = Buffer.from(nonceDigest, 'utf8');
  if (actual.length !== stored.length || !timingSafeEqual(actual, stored)) throw invalid('nonce_mismatch');
  return nonce;
}

function numericDate(value: unknown, check: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalid(check);
  return value;
}

function decodeSegment(segment: string, duplicateCheck: string): Record<string, unknown> {
  const bytes = Buffer.from(segment, 'base64url');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('id_token_malformed');
  }
  let lenient: unknown;
  try {
    lenient = JSON.parse(text);
  } catch {
    throw invalid('id_token_malformed');
  }
  const strict = parseStrictJson(text);
  // Valid JSON that the strict parser refuses: a repeated member (or nesting beyond its bound).
  if (strict === undefined) throw invalid(duplicateCheck);
  if (typeof strict !== 'object' || strict === null || Array.isArray(strict) || lenient === null) {
    throw invalid('id_token_malformed');
  }
  return strict as Record<string, unknown>;
}

function invalid(check: string): FederationProtocolError {
  return new FederationProtocolError('token_invalid', check);
}
