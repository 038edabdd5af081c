import { Buffer } from 'node:buffer';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { encodeCbor, type CborValue } from './cbor.js';

/**
 * The COSE algorithms the software authenticator can create keys for, the three a passkey may use
 * (identity-model §5.3): ES256, EdDSA (Ed25519) and RS256 (a 2048-bit key, as Windows Hello's TPM).
 *
 * @example
 * authenticator.createCredential(options, { origin, overrides: { alg: CoseAlgorithm.RS256 } });
 */
export const CoseAlgorithm = { ES256: -7, EdDSA: -8, RS256: -257 } as const;

/** A {@link CoseAlgorithm} value. */
export type CoseAlgorithmId = (typeof CoseAlgorithm)[keyof typeof CoseAlgorithm];

/** A freshly generated credential key pair and its COSE_Key encoding. */
export interface CoseKeyPair {
  readonly algorithm: CoseAlgorithmId;
  readonly privateKey: KeyObject;
  /** The canonical CBOR COSE_Key placed in the attested credential data. */
  readonly cosePublicKey: Uint8Array<ArrayBuffer>;
}

/**
 * Generates a key pair for `algorithm` with node:crypto and encodes its public half as a COSE_Key:
 * EC2 P-256 `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`, OKP Ed25519 `{1: 1, 3: -8, -1: 6, -2: x}` or
 * RSA `{1: 3, 3: -257, -1: n, -2: e}`.
 *
 * @example
 * const { privateKey, cosePublicKey } = generateCoseKeyPair(CoseAlgorithm.ES256);
 */
export function generateCoseKeyPair(algorithm: CoseAlgorithmId): CoseKeyPair {
  if (algorithm === CoseAlgorithm.ES256) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    return pair(algorithm, privateKey, [
      [1, 2],
      [3, algorithm],
      [-1, 1],
      [-2, jwkBytes(jwk.x)],
      [-3, jwkBytes(jwk.y)],
    ]);
  }
  if (algorithm === CoseAlgorithm.EdDSA) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    return pair(algorithm, privateKey, [
      [1, 1],
      [3, algorithm],
      [-1, 6],
      [-2, jwkBytes(jwk.x)],
    ]);
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  return pair(algorithm, privateKey, [
    [1, 3],
    [3, algorithm],
    [-1, jwkBytes(jwk.n)],
    [-2, jwkBytes(jwk.e)],
  ]);
}

/**
 * Signs `data` as a WebAuthn authenticator does for `algorithm`: ES256 → DER-encoded ECDSA over
 * SHA-256, EdDSA → raw Ed25519, RS256 → RSASSA-PKCS1-v1_5 over SHA-256.
 *
 * @example
 * const signature = signWithCoseKey(CoseAlgorithm.ES256, privateKey, Buffer.concat([authData, clientDataHash]));
 */
export function signWithCoseKey(
  algorithm: CoseAlgorithmId,
  privateKey: KeyObject,
  data: Uint8Array,
): Uint8Array<ArrayBuffer> {
  if (algorithm === CoseAlgorithm.ES256) return sign('sha256', data, { key: privateKey, dsaEncoding: 'der' });
  if (algorithm === CoseAlgorithm.EdDSA) return sign(null, data, privateKey);
  return sign('sha256', data, privateKey);
}

function pair(algorithm: CoseAlgorithmId, privateKey: KeyObject, entries: Array<[CborValue, CborValue]>): CoseKeyPair {
  return { algorithm, privateKey, cosePublicKey: encodeCbor(new Map(entries)) };
}

function jwkBytes(member: string | undefined): Uint8Array {
  if (member === undefined) throw new Error('node:crypto exported a JWK without its key material');
  return Buffer.from(member, 'base64url');
}
