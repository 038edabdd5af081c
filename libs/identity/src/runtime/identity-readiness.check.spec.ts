import { describe, expect, it } from '@jest/globals';
import nodeCrypto from 'node:crypto';
import type { IdentityConfig, ResolvedIdentityConfig } from '../config/identity.config.js';
import { developmentIdentityConfig, productionIdentityConfig } from '../config/identity-config.fixtures.js';
import { createIdentityConfig } from '../config/identity-config.validator.js';
import {
  IDENTITY_STARTUP_ERROR_MESSAGE,
  IdentityStartupError,
  type IdentityStartupCheck,
} from '../errors/identity-boot.errors.js';
import { FrozenClock } from './frozen.clock.js';
import type { IdentityCrypto, IdentityHttpClient, IdentityRuntime } from './identity.runtime.js';
import { requireReady } from './identity-readiness.check.js';
import { createNodeIdentityCrypto } from './node-crypto.provider.js';
import { createNodeIdentityRuntime } from './node-identity.runtime.js';
import { listSecretReferences } from '../config/identity-config-secrets.validator.js';
import { createInMemorySecretResolver } from './secret.resolver.js';

/** Distinct 32-byte values for every reference of `config`. */
function secretsFor(
  config: ResolvedIdentityConfig,
  extra: Record<string, string | Uint8Array> = {},
): Record<string, string | Uint8Array> {
  const map: Record<string, string | Uint8Array> = {};
  for (const { reference } of listSecretReferences(config)) {
    map[reference] = nodeCrypto.createHash('sha256').update(reference).digest('base64url');
  }
  return { ...map, ...extra };
}

function setup(
  input: IdentityConfig,
  overrides: Partial<IdentityRuntime> = {},
  extraSecrets: Record<string, string | Uint8Array> = {},
) {
  const config = createIdentityConfig(input);
  const runtime: IdentityRuntime = {
    ...createNodeIdentityRuntime({
      clock: new FrozenClock('2026-07-14T08:15:30Z'),
      secrets: createInMemorySecretResolver(secretsFor(config, extraSecrets)),
    }),
    ...overrides,
  };
  return { config, runtime };
}

async function failedCheck(runtime: IdentityRuntime, config: ResolvedIdentityConfig): Promise<IdentityStartupCheck> {
  const error = await requireReady(runtime, config).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IdentityStartupError);
  expect((error as Error).message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
  return (error as IdentityStartupError).check;
}

const crypto = (patch: Partial<IdentityCrypto>): IdentityCrypto => ({ ...createNodeIdentityCrypto(), ...patch });

describe('requireReady', () => {
  it('passes on the default Node runtime and returns every resolved key', async () => {
    const { config, runtime } = setup(
      productionIdentityConfig({
        bootstrap: { lifecycle: 'pending', secretRef: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET' },
        secrets: {
          ...productionIdentityConfig().secrets,
          sessionPepper: {
            current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2',
            previous: ['env:TESSERA_PRODUCTION_SESSION_PEPPER'],
          },
        },
      }),
    );
    const keys = await requireReady(runtime, config);
    expect(keys.sessionPepper.current.version).toBe('v2');
    expect(keys.sessionPepper.byVersion('v1')?.key.byteLength).toBe(43);
    expect(keys.auditKey.byteLength).toBe(43);
    expect(keys.bootstrapSecret?.byteLength).toBe(43);
  });

  it('check 1: refuses a crypto provider whose self-test fails', async () => {
    const { config, runtime } = setup(developmentIdentityConfig(), { crypto: crypto({ selfTest: () => false }) });
    expect(await failedCheck(runtime, config)).toBe('crypto_self_test');
  });

  it('refuses a crypto provider that does not declare every required capability', async () => {
    const capabilities = ['sha256', 'hmac_sha256', 'p256_public_key_validate', 'es256_verify', 'rsa_sha256_verify'];
    const { config, runtime } = setup(developmentIdentityConfig(), { crypto: crypto({ capabilities }) });
    expect(await failedCheck(runtime, config)).toBe('crypto_capabilities');
  });

  it('check 2: refuses in production an HTTP client whose self-test fails or is missing', async () => {
    const failing: IdentityHttpClient = {
      followsRedirects: false,
      selfTest: async () => false,
      request: async () => ({ status: 200, headers: {}, body: Buffer.alloc(0) }),
    };
    const a = setup(productionIdentityConfig(), { httpClient: failing });
    expect(await failedCheck(a.runtime, a.config)).toBe('http_client_self_test');
    const missing = { followsRedirects: false, request: failing.request } as unknown as IdentityHttpClient;
    const b = setup(productionIdentityConfig(), { httpClient: missing });
    expect(await failedCheck(b.runtime, b.config)).toBe('http_client_self_test');
    const dev = setup(developmentIdentityConfig(), { httpClient: failing });
    await expect(requireReady(dev.runtime, dev.config)).resolves.toBeDefined();
  });

  it('check 2: refuses an HTTP client that follows redirects', async () => {
    const following = {
      ...createNodeIdentityRuntime().httpClient,
      followsRedirects: true,
    } as unknown as IdentityHttpClient;
    const { config, runtime } = setup(developmentIdentityConfig(), { httpClient: following });
    expect(await failedCheck(runtime, config)).toBe('http_client_redirects');
  });

  it.each(['2019-12-31T23:59:59Z', '2200-01-01T00:00:00Z'])('check 3: refuses the wall clock %s', async (instant) => {
    const { config, runtime } = setup(developmentIdentityConfig(), { clock: new FrozenClock(instant) });
    expect(await failedCheck(runtime, config)).toBe('clock_range');
  });

  it.each([
    ['all-zero first draw', () => new Uint8Array(32)],
    ['identical draws', () => new Uint8Array(32).fill(7)],
    ['short draws', (n: number) => nodeCrypto.randomBytes(n - 1)],
  ])('check 4: refuses a random source with %s', async (_name, bytes) => {
    const { config, runtime } = setup(developmentIdentityConfig(), { random: { bytes } });
    expect(await failedCheck(runtime, config)).toBe('random_source');
  });

  it.each<[string, Partial<IdentityCrypto>]>([
    ['a wrong SHA-256', { sha256: (data) => nodeCrypto.createHash('sha512').update(data).digest().subarray(0, 32) }],
    ['a wrong HMAC', { hmacSha256: (_key, data) => nodeCrypto.createHmac('sha256', 'other').update(data).digest() }],
    ['a compare that throws on length mismatch', { timingSafeEqual: (a, b) => nodeCrypto.timingSafeEqual(a, b) }],
    ['a compare that always answers equal', { timingSafeEqual: () => true }],
  ])('check 5: refuses %s', async (_name, patch) => {
    const { config, runtime } = setup(developmentIdentityConfig(), { crypto: crypto(patch) });
    expect(await failedCheck(runtime, config)).toBe('known_answers');
  });

  it.each<[string, Partial<IdentityCrypto>]>([
    ['accepts off-curve points', { p256PublicKeyValidate: () => true }],
    ['accepts tampered ES256 messages', { es256Verify: () => true }],
    ['rejects valid ES256 signatures', { es256Verify: () => false }],
    ['accepts tampered RSA messages', { rsaSha256Verify: () => true }],
    ['accepts tampered Ed25519 messages', { ed25519Verify: () => true }],
    ['rejects valid Ed25519 signatures', { ed25519Verify: () => false }],
  ])('check 6: refuses a provider that %s', async (_name, patch) => {
    const { config, runtime } = setup(developmentIdentityConfig(), { crypto: crypto(patch) });
    expect(await failedCheck(runtime, config)).toBe('public_key_verification');
  });

  it('check 7: refuses a secret that does not resolve or has fewer than 16 bytes', async () => {
    const dev = developmentIdentityConfig();
    const missing = setup(dev);
    const without = secretsFor(missing.config);
    delete without['env:TESSERA_DEVELOPMENT_SIGNING_KEY'];
    const runtime = { ...missing.runtime, secrets: createInMemorySecretResolver(without) };
    expect(await failedCheck(runtime, missing.config)).toBe('secrets');
    const short = setup(dev, {}, { 'env:TESSERA_DEVELOPMENT_AUDIT_KEY': '15-bytes-secret' });
    expect(await failedCheck(short.runtime, short.config)).toBe('secrets');
  });

  it('check 7: refuses a short previous pepper version and a missing bootstrap secret while pending', async () => {
    const rotated = developmentIdentityConfig({
      secrets: {
        ...developmentIdentityConfig().secrets,
        recoveryPepper: {
          current: 'env:TESSERA_DEVELOPMENT_RECOVERY_PEPPER@v2',
          previous: ['env:TESSERA_DEVELOPMENT_RECOVERY_PEPPER'],
        },
      },
    });
    const short = setup(rotated, {}, { 'env:TESSERA_DEVELOPMENT_RECOVERY_PEPPER': 'short' });
    expect(await failedCheck(short.runtime, short.config)).toBe('secrets');
    const pending = developmentIdentityConfig({
      bootstrap: { lifecycle: 'pending', secretRef: 'env:TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET' },
    });
    const config = createIdentityConfig(pending);
    const map = secretsFor(config);
    delete map['env:TESSERA_DEVELOPMENT_BOOTSTRAP_SECRET'];
    const runtime = createNodeIdentityRuntime({ secrets: createInMemorySecretResolver(map) });
    expect(await failedCheck(runtime, config)).toBe('secrets');
  });

  it('check 7: refuses two references that resolve to the same key (no key reuse across purposes)', async () => {
    const same = 'the-same-value-for-two-purposes!';
    const { config, runtime } = setup(
      developmentIdentityConfig(),
      {},
      { 'env:TESSERA_DEVELOPMENT_AUDIT_KEY': same, 'env:TESSERA_DEVELOPMENT_SIGNING_KEY': same },
    );
    expect(await failedCheck(runtime, config)).toBe('secrets');
  });

  it('keeps the cause for logs but says nothing about it in the message', async () => {
    const { config, runtime } = setup(developmentIdentityConfig(), {
      clock: {
        now: () => {
          throw new Error('clock exploded');
        },
      },
    });
    const error = (await requireReady(runtime, config).catch((e: unknown) => e)) as IdentityStartupError;
    expect(error.check).toBe('clock_range');
    expect((error.cause as Error).message).toBe('clock exploded');
    expect(error.message).not.toContain('clock');
  });
});
