import type { SecretResolver } from './secret.resolver.js';

/**
 * The wall clock of the identity platform; tests inject a {@link FrozenClock}.
 *
 * @example
 * const requestTime = runtime.clock.now();
 */
export interface IdentityClock {
  now(): Date;
}

/**
 * A cryptographically secure random source.
 *
 * @example
 * const secret = runtime.random.bytes(32);
 */
export interface RandomSource {
  bytes(size: number): Uint8Array;
}

/**
 * An uncompressed P-256 public key as affine coordinates (32 bytes each), as in COSE and JWK.
 *
 * @example
 * const key: P256PublicKey = { x: cose.get(-2), y: cose.get(-3) };
 */
export interface P256PublicKey {
  readonly x: Uint8Array;
  readonly y: Uint8Array;
}

/**
 * An RSA public key: big-endian modulus and exponent, as in COSE and JWK.
 *
 * @example
 * const key: RsaPublicKey = { n: Buffer.from(jwk.n, 'base64url'), e: Buffer.from(jwk.e, 'base64url') };
 */
export interface RsaPublicKey {
  readonly n: Uint8Array;
  readonly e: Uint8Array;
}

/**
 * The capabilities a crypto provider must declare (`identity-model.md` §10).
 *
 * @example
 * capabilities: [...REQUIRED_CRYPTO_CAPABILITIES]
 */
export const REQUIRED_CRYPTO_CAPABILITIES = Object.freeze([
  'sha256',
  'hmac_sha256',
  'p256_public_key_validate',
  'es256_verify',
  'rsa_sha256_verify',
  'ed25519_verify',
] as const);

/**
 * The cryptographic primitives of the identity platform. Verification methods return `false`
 * (never throw) for malformed keys or signatures.
 *
 * @example
 * const ok = runtime.crypto.es256Verify(key, signedData, derSignature);
 */
export interface IdentityCrypto {
  sha256(data: Uint8Array): Uint8Array;
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
  /** Constant time; a length mismatch is `false`. */
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** `true` when the point lies on P-256 and both coordinates are 32-byte field elements. */
  p256PublicKeyValidate(key: P256PublicKey): boolean;
  /** ECDSA P-256 / SHA-256; `der` (WebAuthn) by default, `p1363` (JOSE `r ‖ s`). */
  es256Verify(key: P256PublicKey, data: Uint8Array, signature: Uint8Array, format?: 'der' | 'p1363'): boolean;
  /** RSASSA-PKCS1-v1_5 / SHA-256 (RS256); keys under 2048 bits are refused. */
  rsaSha256Verify(key: RsaPublicKey, data: Uint8Array, signature: Uint8Array): boolean;
  /** Ed25519 (EdDSA, RFC 8032) over `data`: a 32-byte public key and a raw 64-byte signature. */
  ed25519Verify(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean;
  /** The provider's own health check; `requireReady` refuses to start unless it returns `true`. */
  selfTest(): boolean;
  /** Declared primitives; must include every {@link REQUIRED_CRYPTO_CAPABILITIES} entry. */
  readonly capabilities: readonly string[];
}

/**
 * One outbound identity HTTP request (OIDC discovery, JWKS, token endpoint, SAML metadata).
 *
 * @example
 * await runtime.httpClient.request({ method: 'GET', url: 'https://idp.example/.well-known/openid-configuration' });
 */
export interface IdentityHttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: Uint8Array | string;
  /** @default 4 MiB (config `limits.outboundResponseBytes`), at most 16 MiB */
  maxResponseBytes?: number;
  /** @default 10 000 */
  timeoutMs?: number;
}

/**
 * An outbound response. Redirects are returned as is (never followed).
 *
 * @example
 * if (response.status !== 200) throw new Error('discovery failed');
 */
export interface IdentityHttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/**
 * The outbound HTTP client. It never follows redirects and must answer `selfTest()` without any
 * network request (`identity-model.md` §10, check 2).
 *
 * @example
 * const runtime = { ...createNodeIdentityRuntime(), httpClient: myAuditedClient };
 */
export interface IdentityHttpClient {
  selfTest(): boolean | Promise<boolean>;
  readonly followsRedirects: false;
  request(request: IdentityHttpRequest): Promise<IdentityHttpResponse>;
}

/**
 * Everything the identity platform takes from its environment (`identity-model.md` §7.3).
 *
 * @example
 * IdentityModule.forRoot({ config, runtime: createNodeIdentityRuntime({ clock: new FrozenClock(t0) }), store });
 */
export interface IdentityRuntime {
  readonly clock: IdentityClock;
  readonly random: RandomSource;
  readonly crypto: IdentityCrypto;
  readonly httpClient: IdentityHttpClient;
  readonly secrets: SecretResolver;
}
