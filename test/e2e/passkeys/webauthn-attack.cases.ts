import { Buffer } from 'node:buffer';
import { generateKeyPairSync } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  AuthenticatorFlag,
  CborRaw,
  CoseAlgorithm,
  cborDeeplyNested,
  cborHead,
  encodeCbor,
  type AssertionOverrides,
  type RegistrationOverrides,
} from '@tessera/identity-testing';

/** Shared helpers and attack tables of the WebAuthn attack specs (not a spec itself). */
const EVIL = 'https://evil.example';
export const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The (r, s) INTEGER contents of a DER ECDSA signature. */
function derIntegers(signature: Buffer): [Buffer, Buffer] {
  const rLength = signature[3]!;
  const r = signature.subarray(4, 4 + rLength);
  const s = signature.subarray(6 + rLength, 6 + rLength + signature[5 + rLength]!);
  return [r, s];
}

const fixed32 = (integer: Buffer) => {
  const trimmed = integer.subarray(integer.length - Math.min(integer.length, 32));
  return Buffer.concat([Buffer.alloc(32 - trimmed.length), trimmed]);
};

/** Re-encodes the response's signature; the signed bytes are unchanged. */
function reencodeSignature(credential: AuthenticationResponseJSON, encode: (der: Buffer) => Buffer): void {
  credential.response.signature = b64(encode(Buffer.from(credential.response.signature, 'base64url')));
}

export interface AssertionAttack {
  readonly attack: string;
  readonly reason: string;
  readonly origin?: string;
  readonly overrides?: AssertionOverrides | ((challenge: string) => AssertionOverrides);
  readonly mutate?: (credential: AuthenticationResponseJSON) => void;
}

export const ASSERTION_ATTACKS: readonly AssertionAttack[] = [
  { attack: 'signed for another origin', origin: EVIL, reason: 'origin_mismatch' },
  { attack: 'signed for the allowed host on another port', origin: 'http://localhost:3001', reason: 'origin_mismatch' },
  {
    attack: 'whose clientDataJSON repeats a member (non-strict JSON)',
    overrides: (challenge) => ({
      clientDataJSON: `{"type":"webauthn.get","challenge":"${challenge}","origin":"${EVIL}","origin":"http://localhost:3000"}`,
    }),
    reason: 'client_data_invalid',
  },
  {
    attack: 'with token binding present',
    overrides: { clientDataExtra: { tokenBinding: { status: 'present', id: 'AAAA' } } },
    reason: 'client_data_invalid',
  },
  {
    attack: 'carrying attested credential data (AT)',
    overrides: { attestedCredentialData: true },
    reason: 'attested_data_mismatch',
  },
  {
    attack: 'whose id names another credential than rawId',
    mutate: (credential) => {
      credential.rawId = b64(Buffer.alloc(32, 1));
    },
    reason: 'credential_id_mismatch',
  },
  {
    attack: 'collected cross-origin (crossOrigin: true)',
    overrides: { crossOrigin: true },
    reason: 'client_data_invalid',
  },
  {
    attack: 'collected in a frame of another top origin (topOrigin)',
    overrides: { topOrigin: EVIL },
    reason: 'client_data_invalid',
  },
  { attack: 'whose rpIdHash names another RP ID', overrides: { rpId: 'evil.example' }, reason: 'rp_id_hash_mismatch' },
  {
    attack: 'without user verification (UV off)',
    overrides: { clearFlags: AuthenticatorFlag.UV },
    reason: 'user_verification_missing',
  },
  {
    attack: 'without user presence (UP off)',
    overrides: { clearFlags: AuthenticatorFlag.UP },
    reason: 'user_presence_missing',
  },
  {
    attack: 'with reserved flag bit 0x02 set',
    overrides: { setFlags: AuthenticatorFlag.RFU1 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'with reserved flag bit 0x20 set',
    overrides: { setFlags: AuthenticatorFlag.RFU2 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'claiming backup state without backup eligibility (BS without BE)',
    overrides: { setFlags: AuthenticatorFlag.BS },
    reason: 'backup_state_without_eligibility',
  },
  {
    attack: 'carrying authenticator extension data (ED)',
    overrides: { extensions: { credProtect: 1 } },
    reason: 'extensions_present',
  },
  {
    attack: 'carrying unexpected clientExtensionResults',
    overrides: { clientExtensionResults: { appid: true } },
    reason: 'unexpected_extension_results',
  },
  { attack: 'with a tampered signature', overrides: { tamperSignature: true }, reason: 'signature_invalid' },
  {
    attack: 'with a raw r‖s (non-DER) signature over the right bytes',
    mutate: (credential) =>
      reencodeSignature(credential, (der) => {
        const [r, s] = derIntegers(der);
        return Buffer.concat([fixed32(r), fixed32(s)]);
      }),
    reason: 'signature_invalid',
  },
  {
    attack: 'with a DER signature whose r INTEGER is not minimally encoded',
    mutate: (credential) =>
      reencodeSignature(credential, (der) => {
        const [r, s] = derIntegers(der);
        const body = Buffer.concat([Buffer.of(0x02, r.length + 1, 0x00), r, Buffer.of(0x02, s.length), s]);
        return Buffer.concat([Buffer.of(0x30, body.length), body]);
      }),
    reason: 'signature_invalid',
  },
  {
    attack: 'with bytes trailing the DER signature',
    mutate: (credential) => reencodeSignature(credential, (der) => Buffer.concat([der, Buffer.of(0x00)])),
    reason: 'signature_invalid',
  },
  {
    attack: 'of the wrong clientData type (webauthn.create)',
    overrides: { type: 'webauthn.create' },
    reason: 'client_data_type_mismatch',
  },
  {
    attack: 'whose clientData challenge is not the ceremony challenge',
    overrides: { challenge: b64(Buffer.alloc(32, 7)) },
    reason: 'challenge_mismatch',
  },
];

export interface RegistrationAttack {
  readonly attack: string;
  readonly reason: string;
  readonly origin?: string;
  readonly overrides: RegistrationOverrides;
  readonly mutate?: (credential: RegistrationResponseJSON) => void;
}

/** An EC2 COSE key map (integer keys) with the given members. */
const coseKey = (members: [number, number | Uint8Array][]) => encodeCbor(new Map(members));

/** The modulus and exponent of a fresh RSA key (node:crypto). */
function rsaPublicKey(modulusLength: number, publicExponent = 65537) {
  const jwk = generateKeyPairSync('rsa', { modulusLength, publicExponent }).publicKey.export({ format: 'jwk' });
  return { n: Buffer.from(jwk.n!, 'base64url'), e: Buffer.from(jwk.e!, 'base64url') };
}

/** An RS256 COSE_Key `{1: 3, 3: -257, -1: n, -2: e}` plus `extra` members. */
const rsaCoseKey = (n: Uint8Array, e: Uint8Array = Uint8Array.of(1, 0, 1), extra: [number, Uint8Array][] = []) =>
  coseKey([[1, 3], [3, -257], [-1, n], [-2, e], ...extra]);

export const REGISTRATION_ATTACKS: readonly RegistrationAttack[] = [
  { attack: 'created for another origin', origin: EVIL, overrides: {}, reason: 'origin_mismatch' },
  {
    attack: 'collected cross-origin (crossOrigin: true)',
    overrides: { crossOrigin: true },
    reason: 'client_data_invalid',
  },
  {
    attack: 'collected in a frame of another top origin (topOrigin)',
    overrides: { topOrigin: EVIL },
    reason: 'client_data_invalid',
  },
  { attack: 'whose rpIdHash names another RP ID', overrides: { rpId: 'evil.example' }, reason: 'rp_id_hash_mismatch' },
  {
    attack: 'without user verification (UV off)',
    overrides: { clearFlags: AuthenticatorFlag.UV },
    reason: 'user_verification_missing',
  },
  {
    attack: 'without user presence (UP off)',
    overrides: { clearFlags: AuthenticatorFlag.UP },
    reason: 'user_presence_missing',
  },
  {
    attack: 'with reserved flag bit 0x02 set',
    overrides: { setFlags: AuthenticatorFlag.RFU1 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'with reserved flag bit 0x20 set',
    overrides: { setFlags: AuthenticatorFlag.RFU2 },
    reason: 'reserved_flags_set',
  },
  {
    attack: 'claiming backup state without backup eligibility (BS without BE)',
    overrides: { setFlags: AuthenticatorFlag.BS },
    reason: 'backup_state_without_eligibility',
  },
  {
    attack: 'carrying authenticator extension data (ED)',
    overrides: { extensions: { credProtect: 1 } },
    reason: 'extensions_present',
  },
  {
    attack: 'carrying clientExtensionResults beyond credProps',
    overrides: { clientExtensionResults: { credProps: { rk: true }, largeBlob: { supported: true } } },
    reason: 'unexpected_extension_results',
  },
  {
    attack: 'of the wrong clientData type (webauthn.get)',
    overrides: { type: 'webauthn.get' },
    reason: 'client_data_type_mismatch',
  },
  {
    attack: 'with a 1024-bit RS256 key',
    overrides: { cosePublicKey: rsaCoseKey(rsaPublicKey(1024).n) },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with an RS256 key whose exponent is 3',
    overrides: { cosePublicKey: rsaCoseKey(rsaPublicKey(2048, 3).n, Uint8Array.of(3)) },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with an RS256 key carrying an extra member',
    overrides: { cosePublicKey: rsaCoseKey(rsaPublicKey(2048).n, Uint8Array.of(1, 0, 1), [[2, Buffer.alloc(4)]]) },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with an OKP key on X25519 instead of Ed25519',
    overrides: {
      cosePublicKey: coseKey([
        [1, 1],
        [3, -8],
        [-1, 4],
        [-2, Buffer.alloc(32, 9)],
      ]),
    },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with a PS256 (-37) RSA key (not offered)',
    overrides: {
      cosePublicKey: coseKey([
        [1, 3],
        [3, -37],
        [-1, rsaPublicKey(2048).n],
        [-2, Uint8Array.of(1, 0, 1)],
      ]),
    },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'with a packed attestation (attestation none only)',
    overrides: { attestationFormat: 'packed' },
    reason: 'attestation_not_none',
  },
  {
    attack: 'whose attestationObject nests CBOR 10 000 levels deep',
    overrides: { attestationObject: cborDeeplyNested(10_000) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose attestation statement holds more than 256 CBOR items',
    overrides: { attStmt: Array.from({ length: 300 }, () => 0) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose COSE key nests CBOR deeper than 8 levels',
    overrides: { cosePublicKey: cborDeeplyNested(9) },
    reason: 'authenticator_data_malformed',
  },
  {
    attack: 'without attested credential data',
    overrides: { attestedCredentialData: false },
    reason: 'attested_data_mismatch',
  },
  {
    attack: 'whose attestation statement is non-canonical CBOR (non-minimal map head)',
    overrides: { attStmt: new CborRaw(cborHead(5, 0, 1)) },
    reason: 'attestation_malformed',
  },
  {
    attack: 'whose id and rawId name another credential than the attested one',
    overrides: { id: b64(Buffer.alloc(32, 1)), rawId: b64(Buffer.alloc(32, 1)) },
    reason: 'credential_id_mismatch',
  },
  {
    attack: 'whose ES256 public key is not a point on P-256',
    overrides: {
      cosePublicKey: coseKey([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.alloc(32, 1)],
        [-3, Buffer.alloc(32, 2)],
      ]),
    },
    reason: 'public_key_invalid',
  },
  {
    attack: 'whose COSE key carries an extra member',
    overrides: {
      cosePublicKey: coseKey([
        [1, 2],
        [2, Buffer.alloc(4)],
        [3, -7],
        [-1, 1],
        [-2, Buffer.alloc(32, 1)],
        [-3, Buffer.alloc(32, 2)],
      ]),
    },
    reason: 'public_key_unsupported',
  },
  {
    attack: 'declaring publicKeyAlgorithm RS256 for its ES256 key',
    overrides: {},
    mutate: (credential) => {
      credential.response.publicKeyAlgorithm = CoseAlgorithm.RS256;
    },
    reason: 'public_key_unsupported',
  },
];
