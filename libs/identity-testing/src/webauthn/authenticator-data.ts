import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { encodeCbor } from './cbor.js';
import type { AuthenticatorDataOverrides } from './software-authenticator.options.js';

/**
 * Authenticator-data flag bits (WebAuthn §6.1): user present, user verified, backup eligible,
 * backup state, attested credential data, extension data, and the two reserved bits.
 *
 * @example
 * overrides: { clearFlags: AuthenticatorFlag.UV }
 */
export const AuthenticatorFlag = {
  UP: 0x01,
  RFU1: 0x02,
  UV: 0x04,
  BE: 0x08,
  BS: 0x10,
  RFU2: 0x20,
  AT: 0x40,
  ED: 0x80,
} as const;

/** The parts of authenticator data, in wire order. */
export interface AuthenticatorDataParts {
  /** SHA-256 of the RP ID (32 bytes). */
  readonly rpIdHash: Uint8Array;
  /** The flags byte. */
  readonly flags: number;
  /** The signature counter, written as 4 bytes big-endian. */
  readonly signCount: number;
  /** From {@link encodeAttestedCredentialData}, when AT is meant to be set. */
  readonly attestedCredentialData?: Uint8Array;
  /** CBOR-encoded authenticator extension outputs, when ED is meant to be set. */
  readonly extensions?: Uint8Array;
}

/**
 * SHA-256 of an RP ID, as placed in the first 32 bytes of authenticator data.
 *
 * @example
 * rpIdHashOf('localhost');
 */
export function rpIdHashOf(rpId: string): Uint8Array<ArrayBuffer> {
  return createHash('sha256').update(rpId, 'utf8').digest();
}

/**
 * Concatenates authenticator data: rpIdHash ‖ flags ‖ signCount (4 B BE) ‖ attested credential
 * data ‖ extensions. Flags are written as given; nothing is derived from the optional parts.
 *
 * @example
 * encodeAuthenticatorData({ rpIdHash: rpIdHashOf('localhost'), flags: 0x05, signCount: 1 });
 */
export function encodeAuthenticatorData(parts: AuthenticatorDataParts): Uint8Array<ArrayBuffer> {
  const header = Buffer.alloc(5);
  header[0] = parts.flags & 0xff;
  header.writeUInt32BE(parts.signCount, 1);
  return Buffer.concat([
    parts.rpIdHash,
    header,
    parts.attestedCredentialData ?? new Uint8Array(0),
    parts.extensions ?? new Uint8Array(0),
  ]);
}

/**
 * Attested credential data: aaguid (16 B) ‖ credential id length (2 B BE) ‖ credential id ‖
 * COSE public key.
 *
 * @example
 * encodeAttestedCredentialData(new Uint8Array(16), credentialId, cosePublicKey);
 */
export function encodeAttestedCredentialData(
  aaguid: Uint8Array,
  credentialId: Uint8Array,
  cosePublicKey: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(credentialId.length, 0);
  return Buffer.concat([aaguid, length, credentialId, cosePublicKey]);
}

/** What {@link buildAuthenticatorData} derives authenticator data from before overrides. */
export interface AuthenticatorDataDefaults {
  readonly rpId: string;
  readonly signCount: number;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  /** The credential's attested credential data. */
  readonly attestedCredentialData: Uint8Array;
  /** Whether it is present unless overridden (registration yes, assertion no). */
  readonly includeAttestedCredentialData: boolean;
}

/**
 * Authenticator data as an honest authenticator builds it (UP, UV, BE/BS from the credential, AT
 * and ED when their parts are present), then each override applied exactly.
 *
 * @example
 * buildAuthenticatorData(defaults, { clearFlags: AuthenticatorFlag.UP });
 */
export function buildAuthenticatorData(
  defaults: AuthenticatorDataDefaults,
  overrides: AuthenticatorDataOverrides = {},
): Uint8Array {
  if (overrides.authenticatorData !== undefined) return overrides.authenticatorData;
  const attested =
    (overrides.attestedCredentialData ?? defaults.includeAttestedCredentialData)
      ? defaults.attestedCredentialData
      : undefined;
  const extensions = overrides.extensions === undefined ? undefined : encodeCbor(overrides.extensions);
  const derived =
    AuthenticatorFlag.UP |
    AuthenticatorFlag.UV |
    (defaults.backupEligible ? AuthenticatorFlag.BE : 0) |
    (defaults.backedUp ? AuthenticatorFlag.BS : 0) |
    (attested === undefined ? 0 : AuthenticatorFlag.AT) |
    (extensions === undefined ? 0 : AuthenticatorFlag.ED);
  return encodeAuthenticatorData({
    rpIdHash: overrides.rpIdHash ?? rpIdHashOf(overrides.rpId ?? defaults.rpId),
    flags: overrides.flags ?? (derived | (overrides.setFlags ?? 0)) & ~(overrides.clearFlags ?? 0),
    signCount: overrides.signCount ?? defaults.signCount,
    ...(attested === undefined ? {} : { attestedCredentialData: attested }),
    ...(extensions === undefined ? {} : { extensions }),
  });
}
