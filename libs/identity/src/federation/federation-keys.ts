import crypto from 'node:crypto';
import type { RandomSource } from '../runtime/identity.runtime.js';
import { decodeBase64Url, encodeBase64Url } from '../tokens/base64url.codec.js';
import { lengthPrefixed } from '../tokens/keyed-digest.crypto.js';
import type { FederationProtocol } from '../store/identity-federation.records.js';

/**
 * The provider storage key (identity-http §6): `oidc.`/`saml.` + b64url(SHA-256(length-prefixed
 * tenant id, provider id, issuer or IdP entity id)). Links, receipts and controls are keyed by it,
 * so a provider re-registered with another issuer never inherits the old links.
 *
 * @example
 * federationStorageKey('oidc', organizationId, 'okta', 'https://acme.okta.com'); // 'oidc.' + 43 chars
 */
export function federationStorageKey(
  protocol: FederationProtocol,
  organizationId: string,
  providerId: string,
  issuer: string,
): string {
  const digest = crypto
    .createHash('sha256')
    .update(lengthPrefixed(organizationId, providerId, issuer))
    .digest();
  return `${protocol}.${encodeBase64Url(digest)}`;
}

/**
 * Unpadded base64url SHA-256 of a UTF-8 string (selector, nonce and replay-key digests).
 *
 * @example
 * sha256Base64Url(selector).length; // 43
 */
export function sha256Base64Url(value: string): string {
  return encodeBase64Url(crypto.createHash('sha256').update(value, 'utf8').digest());
}

/** What a sealed value is for; part of the key derivation and the associated data. */
export type FederationSealPurpose = 'client_secret' | 'pkce_verifier' | 'saml_request_id';

const SEAL_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const DOMAIN = 'tessera-federation-seal-v1';

function sealKey(encryptionKey: Buffer, purpose: FederationSealPurpose): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', encryptionKey, Buffer.alloc(0), `${DOMAIN}:${purpose}`, 32));
}

function associatedData(purpose: FederationSealPurpose, binding: readonly string[]): Buffer {
  return lengthPrefixed(DOMAIN, purpose, String(SEAL_VERSION), ...binding);
}

/**
 * Seals a federation secret (a client secret, a PKCE verifier, a SAML request id) with
 * AES-256-GCM under a key derived (HKDF-SHA-256) from the configuration's encryption key and the
 * purpose; `binding` (tenant, provider, selector digest …) is authenticated, so a ciphertext moved
 * to another row never opens. Layout: version byte ‖ 12-byte nonce ‖ ciphertext ‖ 16-byte tag.
 *
 * @example
 * const sealed = sealFederationSecret(keys.encryptionKey, runtime.random, 'client_secret', [organizationId, providerId], secret);
 */
export function sealFederationSecret(
  encryptionKey: Buffer,
  random: RandomSource,
  purpose: FederationSealPurpose,
  binding: readonly string[],
  plaintext: string,
): Buffer {
  const nonce = Buffer.from(random.bytes(NONCE_BYTES));
  const cipher = crypto.createCipheriv('aes-256-gcm', sealKey(encryptionKey, purpose), nonce);
  cipher.setAAD(associatedData(purpose, binding));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([SEAL_VERSION]), nonce, body, cipher.getAuthTag()]);
}

/**
 * Opens {@link sealFederationSecret}'s output; `undefined` when the version, key, purpose or
 * binding differ or the bytes were altered.
 *
 * @example
 * const secret = openFederationSecret(keys.encryptionKey, 'client_secret', [organizationId, providerId], row.clientSecretCiphertext);
 */
export function openFederationSecret(
  encryptionKey: Buffer,
  purpose: FederationSealPurpose,
  binding: readonly string[],
  sealed: Uint8Array,
): string | undefined {
  if (sealed.byteLength < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== SEAL_VERSION) return undefined;
  const bytes = Buffer.from(sealed);
  const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
  const tag = bytes.subarray(bytes.byteLength - TAG_BYTES);
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', sealKey(encryptionKey, purpose), nonce);
    decipher.setAAD(associatedData(purpose, binding));
    decipher.setAuthTag(tag);
    const body = bytes.subarray(1 + NONCE_BYTES, bytes.byteLength - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * A fresh 32-byte value as 43 base64url chars (state selector, nonce, PKCE verifier).
 *
 * @example
 * const selector = randomToken43(runtime.random);
 */
export function randomToken43(random: RandomSource): string {
  return encodeBase64Url(random.bytes(32));
}

/**
 * `true` for exactly 43 base64url chars decoding to 32 bytes (a state selector).
 *
 * @example
 * isToken43(cookieValue);
 */
export function isToken43(value: string | undefined): value is string {
  return (
    value !== undefined && value.length === 43 && decodeBase64Url(value, { minBytes: 32, maxBytes: 32 }) !== undefined
  );
}
