import { decodeCanonicalCbor, isCborMap, type CborMap } from './cbor.decoder.js';

/** Authenticator data flag bits (WebAuthn §6.1). */
export const AUTH_FLAGS = Object.freeze({
  userPresent: 0x01,
  reserved1: 0x02,
  userVerified: 0x04,
  backupEligible: 0x08,
  backedUp: 0x10,
  reserved2: 0x20,
  attestedCredentialData: 0x40,
  extensionData: 0x80,
});

/** Largest credential id accepted (identity-model §4). */
export const MAX_CREDENTIAL_ID_BYTES = 1024;

/** The attested credential data of a registration. */
export interface AttestedCredential {
  readonly aaguid: Uint8Array;
  readonly credentialId: Uint8Array;
  /** The COSE key exactly as the authenticator encoded it. */
  readonly publicKeyBytes: Uint8Array;
  readonly publicKey: { readonly x: Uint8Array; readonly y: Uint8Array };
}

/** Parsed authenticator data with every contract rule of identity-model §5.3 already applied. */
export interface AuthenticatorData {
  readonly rpIdHash: Uint8Array;
  readonly flags: number;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly attested: AttestedCredential | undefined;
}

/** Why authenticator data was refused (recorded, never sent to the caller). */
export type AuthenticatorDataFailure =
  | 'authenticator_data_malformed'
  | 'user_presence_missing'
  | 'user_verification_missing'
  | 'reserved_flags_set'
  | 'backup_state_without_eligibility'
  | 'extensions_present'
  | 'attested_data_mismatch'
  | 'public_key_unsupported';

/** Outcome of {@link parseAuthenticatorData}. */
export type AuthenticatorDataResult =
  | { readonly ok: true; readonly value: AuthenticatorData }
  | { readonly ok: false; readonly reason: AuthenticatorDataFailure };

/**
 * Parses and checks authenticator data: UP and UV set, reserved bits 0x02/0x20 clear, BS only with
 * BE, no extension data, attested credential data present exactly for a registration, an ES256
 * P-256 COSE key with exactly the members kty, alg, crv, x, y, and no trailing bytes.
 *
 * @example
 * const parsed = parseAuthenticatorData(authData, { registration: true });
 */
export function parseAuthenticatorData(bytes: Uint8Array, options: { registration: boolean }): AuthenticatorDataResult {
  if (bytes.length < 37) return fail('authenticator_data_malformed');
  const flags = bytes[32]!;
  if ((flags & AUTH_FLAGS.userPresent) === 0) return fail('user_presence_missing');
  if ((flags & AUTH_FLAGS.userVerified) === 0) return fail('user_verification_missing');
  if ((flags & (AUTH_FLAGS.reserved1 | AUTH_FLAGS.reserved2)) !== 0) return fail('reserved_flags_set');
  const backupEligible = (flags & AUTH_FLAGS.backupEligible) !== 0;
  const backedUp = (flags & AUTH_FLAGS.backedUp) !== 0;
  if (backedUp && !backupEligible) return fail('backup_state_without_eligibility');
  if ((flags & AUTH_FLAGS.extensionData) !== 0) return fail('extensions_present');
  const hasAttested = (flags & AUTH_FLAGS.attestedCredentialData) !== 0;
  if (hasAttested !== options.registration) return fail('attested_data_mismatch');
  const signCount = new DataView(bytes.buffer, bytes.byteOffset + 33, 4).getUint32(0);
  const base = { rpIdHash: bytes.subarray(0, 32), flags, signCount, backupEligible, backedUp };
  if (!hasAttested) {
    if (bytes.length !== 37) return fail('authenticator_data_malformed');
    return { ok: true, value: { ...base, attested: undefined } };
  }
  const attested = parseAttested(bytes.subarray(37));
  if (typeof attested === 'string') return fail(attested);
  return { ok: true, value: { ...base, attested } };
}

function parseAttested(bytes: Uint8Array): AttestedCredential | AuthenticatorDataFailure {
  if (bytes.length < 18) return 'authenticator_data_malformed';
  const length = (bytes[16]! << 8) | bytes[17]!;
  if (length < 1 || length > MAX_CREDENTIAL_ID_BYTES || bytes.length < 18 + length)
    return 'authenticator_data_malformed';
  const keyBytes = bytes.subarray(18 + length);
  let decoded;
  try {
    decoded = decodeCanonicalCbor(keyBytes);
  } catch {
    return 'authenticator_data_malformed';
  }
  if (!isCborMap(decoded.value)) return 'authenticator_data_malformed';
  const publicKey = es256Key(decoded.value);
  if (publicKey === undefined) return 'public_key_unsupported';
  return {
    aaguid: bytes.subarray(0, 16),
    credentialId: bytes.subarray(18, 18 + length),
    publicKeyBytes: keyBytes,
    publicKey,
  };
}

const ES256_MEMBERS = [1, 3, -1, -2, -3];

/** The x/y of an EC2 P-256 ES256 COSE key with no other members; `undefined` otherwise. */
export function es256Key(cose: CborMap): { x: Uint8Array; y: Uint8Array } | undefined {
  if (cose.size !== ES256_MEMBERS.length || !ES256_MEMBERS.every((key) => cose.has(key))) return undefined;
  const x = cose.get(-2);
  const y = cose.get(-3);
  if (cose.get(1) !== 2 || cose.get(3) !== -7 || cose.get(-1) !== 1) return undefined;
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32) return undefined;
  return { x, y };
}

function fail(reason: AuthenticatorDataFailure): AuthenticatorDataResult {
  return { ok: false, reason };
}
