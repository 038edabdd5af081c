import {
  FrozenClock,
  type IdentityConfig,
  type IdentityCrypto,
  type IdentityHttpClient,
  type IdentityRuntime,
  type IdentityStartupCheck,
} from '@tessera/identity';
import { hardenedConfig, runtimeWith, secretRef, type HardenedEnvironment } from './identity-startup.support.js';

/** Secret reference → value, as the in-memory resolver takes them. */
export type Secrets = Record<string, string | Uint8Array>;

/** One failing check of identity-model §10 and the runtime (or secrets) that makes it fail. */
export interface CheckCase {
  readonly name: string;
  readonly environment: HardenedEnvironment;
  readonly check: IdentityStartupCheck;
  /** What the operator reads next to the check id. */
  readonly hint: RegExp;
  readonly runtime: (secrets: Secrets) => IdentityRuntime;
  readonly secrets?: (secrets: Secrets) => Secrets;
  readonly config?: Partial<IdentityConfig>;
}

const withCrypto = (patch: (base: IdentityCrypto) => Partial<IdentityCrypto>) => (secrets: Secrets) => {
  const base = runtimeWith(secrets);
  return { ...base, crypto: { ...base.crypto, ...patch(base.crypto) } };
};
const withHttpClient = (client: (base: IdentityHttpClient) => object) => (secrets: Secrets) => {
  const base = runtimeWith(secrets);
  return { ...base, httpClient: client(base.httpClient) as IdentityHttpClient };
};
const withRandom = (bytes: (size: number, call: number) => Uint8Array) => (secrets: Secrets) => {
  let call = 0;
  return runtimeWith(secrets, { random: { bytes: (size) => bytes(size, call++) } });
};
const at = (instant: string) => (secrets: Secrets) => runtimeWith(secrets, { clock: new FrozenClock(instant) });
const without = (name: Parameters<typeof secretRef>[1]) => (secrets: Secrets) => {
  const rest = { ...secrets };
  delete rest[secretRef('production', name)];
  return rest;
};

/** Every check of identity-model §10 made to fail by one broken runtime part or secret. */
export const CHECK_CASES: readonly CheckCase[] = [
  {
    name: 'a crypto provider whose self-test fails',
    environment: 'production',
    check: 'crypto_self_test',
    hint: /selfTest\(\) did not return true/,
    runtime: withCrypto(() => ({ selfTest: () => false })),
  },
  {
    name: 'a crypto provider missing a required capability',
    environment: 'staging',
    check: 'crypto_capabilities',
    hint: /must declare the capabilities .*rsa_sha256_verify and ed25519_verify/,
    runtime: withCrypto((c) => ({ capabilities: c.capabilities.filter((x) => x !== 'ed25519_verify') })),
  },
  {
    name: 'an HTTP client that follows redirects',
    environment: 'production',
    check: 'http_client_redirects',
    hint: /must never follow redirects/,
    runtime: withHttpClient((c) => ({ ...c, followsRedirects: true })),
  },
  {
    name: 'a custom HTTP client without a self-test (staging)',
    environment: 'staging',
    check: 'http_client_self_test',
    hint: /must implement selfTest\(\) returning true without any network request/,
    runtime: withHttpClient((c) => ({ followsRedirects: false, request: c.request })),
  },
  {
    name: 'a custom HTTP client without a self-test (production)',
    environment: 'production',
    check: 'http_client_self_test',
    hint: /must implement selfTest\(\)/,
    runtime: withHttpClient((c) => ({ followsRedirects: false, request: c.request })),
  },
  {
    name: 'an HTTP client whose self-test answers false',
    environment: 'production',
    check: 'http_client_self_test',
    hint: /must implement selfTest\(\)/,
    runtime: withHttpClient((c) => ({ ...c, selfTest: async () => false })),
  },
  {
    name: 'a wall clock before 2020-01-01',
    environment: 'production',
    check: 'clock_range',
    hint: /between 2020-01-01 and 2200-01-01; fix the system time/,
    runtime: at('2019-12-31T23:59:59.999Z'),
  },
  {
    name: 'a wall clock at 2200-01-01',
    environment: 'staging',
    check: 'clock_range',
    hint: /between 2020-01-01 and 2200-01-01/,
    runtime: at('2200-01-01T00:00:00Z'),
  },
  {
    name: 'an all-zero random source',
    environment: 'production',
    check: 'random_source',
    hint: /distinct, not all-zero 32-byte draws/,
    runtime: withRandom((size) => new Uint8Array(size)),
  },
  {
    name: 'a random source repeating its draw',
    environment: 'production',
    check: 'random_source',
    hint: /distinct/,
    runtime: withRandom((size) => new Uint8Array(size).fill(7)),
  },
  {
    name: 'a random source of the wrong size',
    environment: 'staging',
    check: 'random_source',
    hint: /32-byte/,
    runtime: withRandom((size, call) => new Uint8Array(size - 1).fill(call + 1)),
  },
  {
    name: 'a wrong SHA-256 known answer',
    environment: 'production',
    check: 'known_answers',
    hint: /SHA-256 \/ HMAC-SHA-256 \/ constant-time comparison known answers; replace it/,
    runtime: withCrypto((c) => ({ sha256: (data) => c.sha256(Buffer.concat([data, Buffer.from('x')])) })),
  },
  {
    name: 'a wrong HMAC-SHA-256 known answer',
    environment: 'production',
    check: 'known_answers',
    hint: /known answers/,
    runtime: withCrypto((c) => ({ hmacSha256: (key, data) => c.hmacSha256(data, key) })),
  },
  {
    name: 'a constant-time compare that accepts a length mismatch',
    environment: 'staging',
    check: 'known_answers',
    hint: /known answers/,
    runtime: withCrypto((c) => ({ timingSafeEqual: (a, b) => c.timingSafeEqual(a.subarray(0, b.byteLength), b) })),
  },
  {
    name: 'P-256 validation accepting an off-curve point',
    environment: 'production',
    check: 'public_key_verification',
    hint: /P-256 \/ ES256 \/ RSA-SHA256 \/ Ed25519 verification vectors; replace it/,
    runtime: withCrypto(() => ({ p256PublicKeyValidate: () => true })),
  },
  {
    name: 'ES256 verification accepting a tampered message',
    environment: 'production',
    check: 'public_key_verification',
    hint: /verification vectors/,
    runtime: withCrypto(() => ({ es256Verify: () => true })),
  },
  {
    name: 'RSA-SHA256 verification accepting a tampered message',
    environment: 'staging',
    check: 'public_key_verification',
    hint: /verification vectors/,
    runtime: withCrypto(() => ({ rsaSha256Verify: () => true })),
  },
  {
    name: 'Ed25519 verification accepting a tampered message',
    environment: 'production',
    check: 'public_key_verification',
    hint: /RSA-SHA256 \/ Ed25519 verification vectors/,
    runtime: withCrypto(() => ({ ed25519Verify: () => true })),
  },
  {
    name: 'a missing secret',
    environment: 'production',
    check: 'secrets',
    hint: /must resolve to at least 16 bytes.*set the variables the references name/,
    runtime: runtimeWith,
    secrets: without('SIGNING_KEY'),
  },
  {
    name: 'a missing previous pepper version',
    environment: 'production',
    check: 'secrets',
    hint: /previous versions/,
    runtime: runtimeWith,
    config: {
      secrets: {
        ...hardenedConfig('production').secrets,
        sessionPepper: {
          current: `${secretRef('production', 'SESSION_PEPPER')}@v2`,
          previous: [secretRef('production', 'SESSION_PEPPER')],
        },
      },
    },
    secrets: (s) => ({
      ...without('SESSION_PEPPER')(s),
      [`${secretRef('production', 'SESSION_PEPPER')}@v2`]: 'v2-pepper-value-long-enough',
    }),
  },
  {
    name: 'a missing bootstrap secret while pending',
    environment: 'production',
    check: 'secrets',
    hint: /the bootstrap secret while pending/,
    runtime: runtimeWith,
    config: { bootstrap: { lifecycle: 'pending', secretRef: secretRef('production', 'BOOTSTRAP_SECRET') } },
    secrets: without('BOOTSTRAP_SECRET'),
  },
  {
    name: 'a secret shorter than 16 bytes',
    environment: 'production',
    check: 'secrets',
    hint: /at least 16 bytes/,
    runtime: runtimeWith,
    secrets: (s) => ({ ...s, [secretRef('production', 'AUDIT_KEY')]: 'fifteen-bytes!!' }),
  },
  {
    name: 'two references resolving to the same value',
    environment: 'production',
    check: 'secrets',
    hint: /each value distinct/,
    runtime: runtimeWith,
    secrets: (s) => ({ ...s, [secretRef('production', 'ENCRYPTION_KEY')]: s[secretRef('production', 'AUDIT_KEY')]! }),
  },
];
