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
  readonly publicKey: CosePublicKey;
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
 * BE, no extension data, attested credential data present exactly for a registration, a COSE key
 * of one of the {@link PASSKEY_ALGORITHMS} with exactly its members (see {@link coseKey}), and no
 * trailing bytes.
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
  const publicKey = coseKey(decoded.value);
  if (publicKey === undefined) return 'public_key_unsupported';
  return {
    aaguid: bytes.subarray(0, 16),
    credentialId: bytes.subarray(18, 18 + length),
    publicKeyBytes: keyBytes,
    publicKey,
  };
}

/**
 * The COSE algorithms a passkey may use, in the order registration offers them (identity-model
 * §5.3): ES256, EdDSA (Ed25519), RS256 (Windows Hello's TPM keys).
 */
export const PASSKEY_ALGORITHMS = Object.freeze([-7, -8, -257] as const);

/** One of the {@link PASSKEY_ALGORITHMS}. */
export type PasskeyAlgorithm = (typeof PASSKEY_ALGORITHMS)[number];

/** A credential public key, by algorithm, as its COSE_Key carries it. */
export type CosePublicKey =
  | { readonly alg: -7; readonly x: Uint8Array; readonly y: Uint8Array }
  | { readonly alg: -8; readonly x: Uint8Array }
  | { readonly alg: -257; readonly n: Uint8Array; readonly e: Uint8Array };

/** RSA modulus bounds of an RS256 passkey, in bytes (2048..4096 bits). */
export const RSA_MODULUS_BYTES = Object.freeze({ min: 256, max: 512 });

const ES256_MEMBERS = [1, 3, -1, -2, -3];
const EDDSA_MEMBERS = [1, 3, -1, -2];
const RS256_MEMBERS = [1, 3, -1, -2];

function exactMembers(cose: CborMap, members: readonly number[]): boolean {
  return cose.size === members.length && members.every((key) => cose.has(key));
}

/**
 * The public key of a COSE_Key with exactly the members of its algorithm, `undefined` otherwise:
 * ES256 — EC2 (kty 2), crv P-256 (1), 32-byte x and y; EdDSA — OKP (kty 1), crv Ed25519 (6),
 * 32-byte x; RS256 — RSA (kty 3), a 2048..4096-bit odd modulus n without a leading zero byte and
 * the exponent 65537 encoded as the three bytes 01 00 01.
 *
 * @example
 * const key = coseKey(decodeCanonicalCbor(bytes).value as CborMap); // { alg: -257, n, e }
 */
export function coseKey(cose: CborMap): CosePublicKey | undefined {
  const alg = cose.get(3);
  if (alg === -7) return es256Key(cose);
  if (alg === -8) return eddsaKey(cose);
  if (alg === -257) return rs256Key(cose);
  return undefined;
}

/** The x/y of an EC2 P-256 ES256 COSE key with no other members; `undefined` otherwise. */
export function es256Key(cose: CborMap): Extract<CosePublicKey, { alg: -7 }> | undefined {
  if (!exactMembers(cose, ES256_MEMBERS)) return undefined;
  const x = cose.get(-2);
  const y = cose.get(-3);
  if (cose.get(1) !== 2 || cose.get(3) !== -7 || cose.get(-1) !== 1) return undefined;
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32) return undefined;
  return { alg: -7, x, y };
}

function eddsaKey(cose: CborMap): Extract<CosePublicKey, { alg: -8 }> | undefined {
  if (!exactMembers(cose, EDDSA_MEMBERS)) return undefined;
  const x = cose.get(-2);
  if (cose.get(1) !== 1 || cose.get(3) !== -8 || cose.get(-1) !== 6) return undefined;
  if (!(x instanceof Uint8Array) || x.length !== 32) return undefined;
  return { alg: -8, x };
}

function rs256Key(cose: CborMap): Extract<CosePublicKey, { alg: -257 }> | undefined {
  if (!exactMembers(cose, RS256_MEMBERS)) return undefined;
  const n = cose.get(-1);
  const e = cose.get(-2);
  if (cose.get(1) !== 3 || cose.get(3) !== -257) return undefined;
  if (!(n instanceof Uint8Array) || n.length < RSA_MODULUS_BYTES.min || n.length > RSA_MODULUS_BYTES.max)
    return undefined;
  // No leading zero byte, top bit of a 256-byte modulus set (≥ 2048 bits), odd.
  if (n[0] === 0 || (n.length === RSA_MODULUS_BYTES.min && n[0]! < 0x80) || (n[n.length - 1]! & 1) === 0)
    return undefined;
  if (!(e instanceof Uint8Array) || e.length !== 3 || e[0] !== 1 || e[1] !== 0 || e[2] !== 1) return undefined;
  return { alg: -257, n, e };
}

function fail(reason: AuthenticatorDataFailure): AuthenticatorDataResult {
  return { ok: false, reason };
}
