import { decodeBase64Url } from '../../tokens/base64url.codec.js';
import type { AuthenticatorTransport } from '../../store/identity-records.js';

/** WebAuthn size bounds (identity-model §4), checked before anything is decoded. */
export const WEBAUTHN_LIMITS = Object.freeze({
  clientDataJsonBytes: 8 * 1024,
  authenticatorDataBytes: 64 * 1024,
  attestationObjectBytes: 128 * 1024,
  credentialIdBytes: 1024,
  credentialIdMinChars: 2,
  credentialIdMaxChars: 5464,
  /** DER ES256 ≥ 6 bytes (8 chars); RS256 = the modulus length, ≤ 512 bytes (683 chars). */
  signatureMinChars: 8,
  signatureMaxChars: 683,
  signatureMaxBytes: 512,
  userHandleBytes: 64,
  publicKeyBytes: 2048,
  transports: 8,
});

/** The six transports of identity-http §4.5 (`smart-card` with its hyphen). */
export const AUTHENTICATOR_TRANSPORTS: readonly AuthenticatorTransport[] = Object.freeze([
  'usb',
  'nfc',
  'ble',
  'internal',
  'hybrid',
  'smart-card',
]);

interface CredentialCommon {
  /** The `id` string as sent (base64url of the credential id). */
  readonly id: string;
  readonly rawId: Uint8Array;
  readonly clientDataJSON: Uint8Array;
  readonly authenticatorAttachment: 'platform' | 'cross-platform' | undefined;
  readonly clientExtensionResults: Readonly<Record<string, unknown>>;
}

/** A `RegistrationCredential` (identity-http §4.6) with every binary member decoded. */
export interface RegistrationCredential extends CredentialCommon {
  readonly attestationObject: Uint8Array;
  readonly transports: readonly AuthenticatorTransport[];
  /** WebAuthn L3 `toJSON()` extras, cross-checked when present. */
  readonly publicKeyAlgorithm: number | undefined;
  readonly authenticatorData: Uint8Array | undefined;
}

/** An `AuthenticationCredential` (identity-http §4.6) with every binary member decoded. */
export interface AuthenticationCredential extends CredentialCommon {
  readonly authenticatorData: Uint8Array;
  readonly signature: Uint8Array;
  readonly userHandle: Uint8Array;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Json, required: readonly string[], optional: readonly string[]): boolean {
  for (const key of Object.keys(value)) if (!required.includes(key) && !optional.includes(key)) return false;
  return required.every((key) => Object.hasOwn(value, key));
}

function common(value: unknown, responseRequired: readonly string[], responseOptional: readonly string[]) {
  if (!isObject(value)) return undefined;
  const top = ['id', 'rawId', 'type', 'response', 'clientExtensionResults'];
  if (!onlyKeys(value, top, ['authenticatorAttachment'])) return undefined;
  const { id, type, response, clientExtensionResults, authenticatorAttachment } = value;
  if (typeof id !== 'string' || id.length < WEBAUTHN_LIMITS.credentialIdMinChars) return undefined;
  if (id.length > WEBAUTHN_LIMITS.credentialIdMaxChars || type !== 'public-key') return undefined;
  if (!isObject(response) || !onlyKeys(response, responseRequired, responseOptional)) return undefined;
  if (!isObject(clientExtensionResults)) return undefined;
  if (
    authenticatorAttachment !== undefined &&
    authenticatorAttachment !== 'platform' &&
    authenticatorAttachment !== 'cross-platform'
  ) {
    return undefined;
  }
  // `id` and `rawId` are both strict base64url within the `id` string bound (2..5464 characters,
  // ≤ 4096 bytes); that they name the same credential is a verification step (401), not decoding.
  const idBytes = { minBytes: 1, maxBytes: WEBAUTHN_LIMITS.credentialIdBytes * 4 };
  if (decodeBase64Url(id, idBytes) === undefined) return undefined;
  const rawId = decodeBase64Url(value.rawId, idBytes);
  const clientDataJSON = decodeBase64Url(response.clientDataJSON, {
    minBytes: 1,
    maxBytes: WEBAUTHN_LIMITS.clientDataJsonBytes,
  });
  if (rawId === undefined || clientDataJSON === undefined) return undefined;
  return {
    response,
    common: {
      id,
      rawId,
      clientDataJSON,
      authenticatorAttachment: authenticatorAttachment as CredentialCommon['authenticatorAttachment'],
      clientExtensionResults,
    },
  };
}

/** The transports list: ≤ 8, distinct, every value known; `undefined` otherwise. */
export function parseTransports(value: unknown): AuthenticatorTransport[] | undefined {
  if (!Array.isArray(value) || value.length > WEBAUTHN_LIMITS.transports) return undefined;
  const seen = new Set<AuthenticatorTransport>();
  for (const item of value) {
    if (typeof item !== 'string' || !AUTHENTICATOR_TRANSPORTS.includes(item as AuthenticatorTransport))
      return undefined;
    if (seen.has(item as AuthenticatorTransport)) return undefined;
    seen.add(item as AuthenticatorTransport);
  }
  return [...seen];
}

/**
 * Strictly decodes a `RegistrationCredential`: exact member sets (the WebAuthn L3 extras
 * `publicKeyAlgorithm`, `publicKey`, `authenticatorData` tolerated), strict base64url within the
 * size bounds, known transports only. `undefined` means 400 `request_invalid`.
 *
 * @example
 * const credential = parseRegistrationCredential(body.credential);
 */
export function parseRegistrationCredential(value: unknown): RegistrationCredential | undefined {
  const parsed = common(
    value,
    ['clientDataJSON', 'attestationObject'],
    ['transports', 'publicKeyAlgorithm', 'publicKey', 'authenticatorData'],
  );
  if (parsed === undefined) return undefined;
  const { response } = parsed;
  const attestationObject = decodeBase64Url(response.attestationObject, {
    minBytes: 1,
    maxBytes: WEBAUTHN_LIMITS.attestationObjectBytes,
  });
  const transports = response.transports === undefined ? [] : parseTransports(response.transports);
  if (attestationObject === undefined || transports === undefined) return undefined;
  const algorithm = response.publicKeyAlgorithm;
  if (algorithm !== undefined && !Number.isInteger(algorithm)) return undefined;
  if (
    response.publicKey !== undefined &&
    decodeBase64Url(response.publicKey, { maxBytes: WEBAUTHN_LIMITS.publicKeyBytes }) === undefined
  ) {
    return undefined;
  }
  let authenticatorData: Uint8Array | undefined;
  if (response.authenticatorData !== undefined) {
    authenticatorData = decodeBase64Url(response.authenticatorData, {
      minBytes: 37,
      maxBytes: WEBAUTHN_LIMITS.authenticatorDataBytes,
    });
    if (authenticatorData === undefined) return undefined;
  }
  return {
    ...parsed.common,
    attestationObject,
    transports,
    publicKeyAlgorithm: algorithm as number | undefined,
    authenticatorData,
  };
}

/**
 * Strictly decodes an `AuthenticationCredential` (exact members, bounded base64url, signature
 * string 8..683 chars — DER ES256, raw Ed25519 or an RS256 signature of up to 4096 bits —,
 * `userHandle` ≤ 64 bytes). `undefined` means 400 `request_invalid`.
 *
 * @example
 * const credential = parseAuthenticationCredential(body.credential);
 */
export function parseAuthenticationCredential(value: unknown): AuthenticationCredential | undefined {
  const parsed = common(value, ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle'], []);
  if (parsed === undefined) return undefined;
  const { response } = parsed;
  const signatureText = response.signature;
  if (
    typeof signatureText !== 'string' ||
    signatureText.length < WEBAUTHN_LIMITS.signatureMinChars ||
    signatureText.length > WEBAUTHN_LIMITS.signatureMaxChars
  ) {
    return undefined;
  }
  const authenticatorData = decodeBase64Url(response.authenticatorData, {
    minBytes: 37,
    maxBytes: WEBAUTHN_LIMITS.authenticatorDataBytes,
  });
  const signature = decodeBase64Url(signatureText, { minBytes: 6, maxBytes: WEBAUTHN_LIMITS.signatureMaxBytes });
  const userHandle = decodeBase64Url(response.userHandle, { minBytes: 1, maxBytes: WEBAUTHN_LIMITS.userHandleBytes });
  if (authenticatorData === undefined || signature === undefined || userHandle === undefined) return undefined;
  return { ...parsed.common, authenticatorData, signature, userHandle };
}
