import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { IdentityCrypto } from '../../runtime/identity.runtime.js';
import type { AuthenticatorTransport, CredentialRecord } from '../../store/identity-records.js';
import { decodeBase64Url, encodeBase64Url } from '../../tokens/base64url.codec.js';
import {
  coseKey,
  parseAuthenticatorData,
  type AuthenticatorData,
  type CosePublicKey,
  type PasskeyAlgorithm,
} from './authenticator-data.js';
import { decodeCanonicalCbor, isCborMap } from './cbor.decoder.js';
import { isStrictDerSignature, parseClientData } from './client-data.js';
import type { AuthenticationCredential, RegistrationCredential } from './credential-json.parser.js';

/** What a ceremony expects: challenge digest from the store, exact origins and RP ID. */
export interface CeremonyExpectation {
  /** SHA-256 of the 32 challenge bytes, as stored on the challenge row. */
  readonly challengeDigest: Uint8Array;
  readonly origins: readonly string[];
  readonly rpId: string;
}

/** What a registration expects besides: the algorithms its options offered (`pubKeyCredParams`). */
export interface RegistrationExpectation extends CeremonyExpectation {
  readonly algorithms: readonly PasskeyAlgorithm[];
}

/** A verified registration: the credential to store. */
export interface VerifiedRegistration {
  readonly webAuthnId: string;
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly transports: readonly AuthenticatorTransport[];
}

/** A verified assertion; `counterRegressed` means quarantine, not sign-in. */
export interface VerifiedAssertion {
  readonly signCount: number;
  readonly backedUp: boolean;
  readonly counterRegressed: boolean;
}

/** Outcome of a verification; `reason` is recorded on the failed challenge, never sent. */
export type Verification<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const fail = (reason: string) => ({ ok: false, reason }) as const;

function checkClientData(crypto: IdentityCrypto, bytes: Uint8Array, type: string, expected: CeremonyExpectation) {
  const clientData = parseClientData(bytes);
  if (clientData === undefined) return fail('client_data_invalid');
  if (clientData.type !== type) return fail('client_data_type_mismatch');
  const challenge = decodeBase64Url(clientData.challenge, { minBytes: 32, maxBytes: 32 });
  if (challenge === undefined || !crypto.timingSafeEqual(crypto.sha256(challenge), expected.challengeDigest))
    return fail('challenge_mismatch');
  if (!expected.origins.includes(clientData.origin)) return fail('origin_mismatch');
  return { ok: true, value: clientData } as const;
}

function checkAuthenticatorData(
  crypto: IdentityCrypto,
  bytes: Uint8Array,
  registration: boolean,
  rpId: string,
): Verification<AuthenticatorData> {
  const parsed = parseAuthenticatorData(bytes, { registration });
  if (!parsed.ok) return fail(parsed.reason);
  const rpIdHash = crypto.sha256(new TextEncoder().encode(rpId));
  if (!crypto.timingSafeEqual(parsed.value.rpIdHash, rpIdHash)) return fail('rp_id_hash_mismatch');
  return parsed;
}

function credPropsOnly(results: Readonly<Record<string, unknown>>): boolean {
  for (const [key, value] of Object.entries(results)) {
    if (key !== 'credProps' || typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    for (const [member, flag] of Object.entries(value)) if (member !== 'rk' || typeof flag !== 'boolean') return false;
  }
  return true;
}

function attestationAuthData(bytes: Uint8Array): Uint8Array | string {
  let decoded;
  try {
    decoded = decodeCanonicalCbor(bytes).value;
  } catch {
    return 'attestation_malformed';
  }
  if (!isCborMap(decoded) || decoded.size !== 3) return 'attestation_malformed';
  const statement = decoded.get('attStmt');
  const authData = decoded.get('authData');
  if (decoded.get('fmt') !== 'none') return 'attestation_not_none';
  if (!isCborMap(statement) || statement.size !== 0) return 'attestation_not_none';
  if (!(authData instanceof Uint8Array)) return 'attestation_malformed';
  return authData;
}

/**
 * Verifies a registration under every rule of identity-model §5.3, then lets
 * `@simplewebauthn/server` verify it too (the offered algorithms only, UV required, exact origins
 * and RP ID). The COSE key must be of an offered algorithm, with exactly that algorithm's members.
 *
 * @example
 * const result = await verifyRegistration(runtime.crypto, credential, json, { challengeDigest, origins, rpId, algorithms: PASSKEY_ALGORITHMS });
 */
export async function verifyRegistration(
  crypto: IdentityCrypto,
  credential: RegistrationCredential,
  json: unknown,
  expected: RegistrationExpectation,
): Promise<Verification<VerifiedRegistration>> {
  const clientData = checkClientData(crypto, credential.clientDataJSON, 'webauthn.create', expected);
  if (!clientData.ok) return clientData;
  const authData = attestationAuthData(credential.attestationObject);
  if (typeof authData === 'string') return fail(authData);
  const parsed = checkAuthenticatorData(crypto, authData, true, expected.rpId);
  if (!parsed.ok) return parsed;
  const attested = parsed.value.attested!;
  if (!crypto.timingSafeEqual(attested.credentialId, credential.rawId)) return fail('credential_id_mismatch');
  if (credential.id !== encodeBase64Url(credential.rawId)) return fail('credential_id_mismatch');
  const key = attested.publicKey;
  if (!expected.algorithms.includes(key.alg)) return fail('public_key_unsupported');
  if (key.alg === -7 && !crypto.p256PublicKeyValidate(key)) return fail('public_key_invalid');
  if (!credPropsOnly(credential.clientExtensionResults)) return fail('unexpected_extension_results');
  if (credential.publicKeyAlgorithm !== undefined && credential.publicKeyAlgorithm !== key.alg)
    return fail('public_key_unsupported');
  if (credential.authenticatorData !== undefined && !crypto.timingSafeEqual(credential.authenticatorData, authData))
    return fail('authenticator_data_mismatch');
  try {
    const library = await verifyRegistrationResponse({
      response: json as RegistrationResponseJSON,
      expectedChallenge: clientData.value.challenge,
      expectedOrigin: [...expected.origins],
      expectedRPID: expected.rpId,
      expectedType: 'webauthn.create',
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: [...expected.algorithms],
    });
    if (!library.verified || library.registrationInfo.credential.id !== credential.id) return fail('library_rejected');
  } catch {
    return fail('library_rejected');
  }
  return {
    ok: true,
    value: {
      webAuthnId: credential.id,
      publicKey: Uint8Array.from(attested.publicKeyBytes),
      signCount: parsed.value.signCount,
      backupEligible: parsed.value.backupEligible,
      backedUp: parsed.value.backedUp,
      transports: credential.transports,
    },
  };
}

/**
 * Verifies an assertion for a stored credential under identity-model §5.3: type, challenge,
 * origin, crossOrigin, RP ID hash, UP/UV, reserved bits, no extensions, `userHandle` equal to the
 * owner's id bytes, immutable backup eligibility, and a signature under the stored key's own
 * algorithm (see {@link signatureValid}). A counter regression
 * (both non-zero, returned ≤ stored) with a valid signature is reported, never accepted.
 *
 * Every check `verifyAuthenticationResponse` of `@simplewebauthn/server` makes is made here,
 * stricter, so it is not run a second time on the sign-in path: it cost 1.0 ms of the 1.3 ms a
 * verification took (bench/passkey, `bench/RESULTS.md`). Registration still goes through it.
 *
 * @example
 * const result = await verifyAssertion(runtime.crypto, credential, json, stored, expectation);
 */
export async function verifyAssertion(
  crypto: IdentityCrypto,
  credential: AuthenticationCredential,
  _json: unknown,
  stored: CredentialRecord,
  expected: CeremonyExpectation,
): Promise<Verification<VerifiedAssertion>> {
  const clientData = checkClientData(crypto, credential.clientDataJSON, 'webauthn.get', expected);
  if (!clientData.ok) return clientData;
  const parsed = checkAuthenticatorData(crypto, credential.authenticatorData, false, expected.rpId);
  if (!parsed.ok) return parsed;
  if (credential.id !== stored.webAuthnId || encodeBase64Url(credential.rawId) !== stored.webAuthnId)
    return fail('credential_id_mismatch');
  if (!crypto.timingSafeEqual(credential.userHandle, new TextEncoder().encode(stored.userId)))
    return fail('user_handle_mismatch');
  if (Object.keys(credential.clientExtensionResults).length !== 0) return fail('unexpected_extension_results');
  if (parsed.value.backupEligible !== stored.backupEligible) return fail('backup_eligibility_changed');
  const key = storedKey(stored.publicKey);
  if (key === undefined) return fail('public_key_invalid');
  const signed = Buffer.concat([credential.authenticatorData, crypto.sha256(credential.clientDataJSON)]);
  if (!signatureValid(crypto, key, signed, credential.signature)) return fail('signature_invalid');
  const returned = parsed.value.signCount;
  // WebAuthn L3 §7.2 step 21: with either counter non-zero, a returned value not above the stored
  // one is a regression (a zero from an authenticator that counted before included).
  const counterRegressed = (stored.signCount !== 0 || returned !== 0) && returned <= stored.signCount;
  return { ok: true, value: { signCount: returned, backedUp: parsed.value.backedUp, counterRegressed } };
}

/**
 * A signature under the stored key's algorithm: ES256 a strict DER ECDSA signature; EdDSA the raw
 * 64 bytes (no DER); RS256 PKCS#1 v1.5 exactly as long as the modulus.
 */
function signatureValid(crypto: IdentityCrypto, key: CosePublicKey, signed: Uint8Array, signature: Uint8Array) {
  switch (key.alg) {
    case -7:
      return isStrictDerSignature(signature) && crypto.es256Verify(key, signed, signature, 'der');
    case -8:
      return signature.length === 64 && crypto.ed25519Verify(key.x, signed, signature);
    case -257:
      return signature.length === key.n.length && crypto.rsaSha256Verify(key, signed, signature);
  }
}

function storedKey(bytes: Uint8Array): CosePublicKey | undefined {
  try {
    const decoded = decodeCanonicalCbor(bytes).value;
    return isCborMap(decoded) ? coseKey(decoded) : undefined;
  } catch {
    return undefined;
  }
}
