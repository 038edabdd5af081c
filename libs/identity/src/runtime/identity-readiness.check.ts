import type { ResolvedIdentityConfig } from '../config/identity.config.js';
import { IdentityStartupError, type IdentityStartupCheck } from '../errors/identity-boot.errors.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { REQUIRED_CRYPTO_CAPABILITIES, type IdentityRuntime } from './identity.runtime.js';
import { MIN_SECRET_BYTES, resolveKeyRing, type KeyRing } from './key-ring.resolver.js';
import { SELF_TEST_VECTORS as V } from './self-test.vectors.js';

const CLOCK_MIN_MS = Date.UTC(2020, 0, 1);
const CLOCK_MAX_MS = Date.UTC(2200, 0, 1);

/**
 * Every secret resolved by {@link requireReady}, so services never resolve them again.
 *
 * @example
 * const keys = await requireReady(runtime, config);
 * const digest = keyedDigest(keys.sessionPepper.current.key, 'tessera-session-v1', secret);
 */
export interface IdentityKeyMaterial {
  readonly sessionPepper: KeyRing;
  readonly recoveryPepper: KeyRing;
  readonly devicePepper: KeyRing;
  readonly servicePepper: KeyRing;
  readonly auditKey: Buffer;
  readonly encryptionKey: Buffer;
  readonly signingKey: Buffer;
  /** Only while the bootstrap lifecycle is `pending`. */
  readonly bootstrapSecret?: Buffer;
}

/**
 * Runs every startup check of `identity-model.md` §10 (1–7, with the crypto capability gate
 * right after the provider self-test). Any failure throws {@link IdentityStartupError} with a generic message; the failed check
 * id and cause stay on the error for logs. Resolves the key material on success. Secrets must
 * also be pairwise distinct (a shared value across two references would defeat key separation).
 *
 * @example
 * const keys = await requireReady(createNodeIdentityRuntime(), config);
 */
export async function requireReady(
  runtime: IdentityRuntime,
  config: ResolvedIdentityConfig,
): Promise<IdentityKeyMaterial> {
  await check('crypto_self_test', () => runtime.crypto.selfTest() === true);
  await check('crypto_capabilities', () => {
    const declared = new Set(runtime.crypto.capabilities);
    return REQUIRED_CRYPTO_CAPABILITIES.every((capability) => declared.has(capability));
  });
  await check('http_client_redirects', () => runtime.httpClient.followsRedirects === false);
  if (config.environment === 'staging' || config.environment === 'production') {
    // A custom client without selfTest fails here (calling undefined throws).
    await check('http_client_self_test', async () => (await runtime.httpClient.selfTest()) === true);
  }
  await check('clock_range', () => {
    const now = runtime.clock.now();
    const ms = now instanceof Date ? now.getTime() : Number.NaN;
    return ms >= CLOCK_MIN_MS && ms < CLOCK_MAX_MS;
  });
  await check('random_source', () => {
    const first = runtime.random.bytes(32);
    const second = runtime.random.bytes(32);
    return (
      first instanceof Uint8Array &&
      second instanceof Uint8Array &&
      first.byteLength === 32 &&
      second.byteLength === 32 &&
      first.some((byte) => byte !== 0) &&
      !Buffer.from(first).equals(Buffer.from(second))
    );
  });
  await check('known_answers', () => knownAnswers(runtime));
  await check('public_key_verification', () => publicKeyChecks(runtime));
  const keys = await check('secrets', () => resolveSecrets(runtime, config));
  return keys;
}

/**
 * identity-model §10: staging/production run on a PostgreSQL server. The declared `store.kind` is
 * validated with the configuration; this asks the live connection (`inspectDatabaseEngine`), so an
 * embedded PGlite behind a `postgresql` declaration is refused too (`store_engine`), as is a
 * database that cannot be asked.
 *
 * @example
 * await requireServerDatabase(store, config);
 */
export async function requireServerDatabase(
  store: Pick<IdentityStore, 'inspectDatabaseEngine'>,
  config: ResolvedIdentityConfig,
): Promise<void> {
  if (config.environment !== 'staging' && config.environment !== 'production') return;
  await check('store_engine', async () => (await store.inspectDatabaseEngine()) === 'postgresql');
}

async function check<T>(id: IdentityStartupCheck, run: () => T | Promise<T>): Promise<Exclude<T, false>> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    throw new IdentityStartupError(id, { cause: error });
  }
  if (result === false) throw new IdentityStartupError(id);
  return result as Exclude<T, false>;
}

/**
 * The cheap part of the startup self-tests (hash, HMAC and constant-time comparison known
 * answers), run again by the readiness probe: `false` (never a throw) when one fails.
 *
 * @example
 * const selfTests = rerunKnownAnswers(kernel.runtime) ? 'ok' : 'failed';
 */
export function rerunKnownAnswers(runtime: IdentityRuntime): boolean {
  try {
    return knownAnswers(runtime);
  } catch {
    return false;
  }
}

function knownAnswers(runtime: IdentityRuntime): boolean {
  const { crypto } = runtime;
  const sha = Buffer.from(crypto.sha256(Buffer.from(V.sha256.input, 'utf8'))).toString('hex');
  const mac = Buffer.from(crypto.hmacSha256(Buffer.from(V.hmacSha256.key), Buffer.from(V.hmacSha256.input))).toString(
    'hex',
  );
  const a = Buffer.from(V.sha256.hex, 'hex');
  const b = Buffer.from(a);
  const c = Buffer.from(a);
  c[31] = c[31]! ^ 0x01;
  return (
    sha === V.sha256.hex &&
    mac === V.hmacSha256.hex &&
    crypto.timingSafeEqual(a, b) === true &&
    crypto.timingSafeEqual(a, c) === false &&
    crypto.timingSafeEqual(a, a.subarray(0, 31)) === false
  );
}

function publicKeyChecks(runtime: IdentityRuntime): boolean {
  const { crypto } = runtime;
  const b64 = (value: string): Buffer => Buffer.from(value, 'base64url');
  const p256 = { x: b64(V.p256.x), y: b64(V.p256.y) };
  const offCurve = { x: p256.x, y: b64(V.p256.offCurveY) };
  const rsa = { n: b64(V.rsa.n), e: b64(V.rsa.e) };
  const ed25519 = b64(V.ed25519.x);
  const message = Buffer.from(V.message, 'utf8');
  const tampered = Buffer.from(V.tamperedMessage, 'utf8');
  return (
    crypto.p256PublicKeyValidate(p256) === true &&
    crypto.p256PublicKeyValidate(offCurve) === false &&
    crypto.es256Verify(p256, message, b64(V.p256.es256DerSignature)) === true &&
    crypto.es256Verify(p256, tampered, b64(V.p256.es256DerSignature)) === false &&
    crypto.rsaSha256Verify(rsa, message, b64(V.rsa.signature)) === true &&
    crypto.rsaSha256Verify(rsa, tampered, b64(V.rsa.signature)) === false &&
    crypto.ed25519Verify(ed25519, message, b64(V.ed25519.signature)) === true &&
    crypto.ed25519Verify(ed25519, tampered, b64(V.ed25519.signature)) === false
  );
}

async function resolveSecrets(
  runtime: IdentityRuntime,
  config: ResolvedIdentityConfig,
): Promise<IdentityKeyMaterial | false> {
  const { secrets } = config;
  const single = async (reference: string): Promise<Buffer> => Buffer.from(await runtime.secrets.resolve(reference));
  const [sessionPepper, recoveryPepper, devicePepper, servicePepper] = await Promise.all(
    [secrets.sessionPepper, secrets.recoveryPepper, secrets.devicePepper, secrets.servicePepper].map((refs) =>
      resolveKeyRing(runtime.secrets, refs),
    ),
  );
  const auditKey = await single(secrets.auditKey);
  const encryptionKey = await single(secrets.encryptionKey);
  const signingKey = await single(secrets.signingKey);
  const bootstrapSecret =
    config.bootstrap.lifecycle === 'pending' && config.bootstrap.secretRef !== undefined
      ? await single(config.bootstrap.secretRef)
      : undefined;
  const all = [
    ...[sessionPepper!, recoveryPepper!, devicePepper!, servicePepper!].flatMap((ring) =>
      ring.entries.map((entry) => entry.key),
    ),
    auditKey,
    encryptionKey,
    signingKey,
    ...(bootstrapSecret === undefined ? [] : [bootstrapSecret]),
  ];
  if (all.some((key) => key.byteLength < MIN_SECRET_BYTES)) return false;
  const distinct = new Set(all.map((key) => key.toString('base64')));
  if (distinct.size !== all.length) return false;
  return {
    sessionPepper: sessionPepper!,
    recoveryPepper: recoveryPepper!,
    devicePepper: devicePepper!,
    servicePepper: servicePepper!,
    auditKey,
    encryptionKey,
    signingKey,
    ...(bootstrapSecret === undefined ? {} : { bootstrapSecret }),
  };
}
