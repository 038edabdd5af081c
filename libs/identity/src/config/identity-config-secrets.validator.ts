import { MAX_PREVIOUS_KEY_VERSIONS } from '../runtime/key-ring.resolver.js';
import { parseSecretReference, type SecretReference } from '../runtime/secret.resolver.js';
import type { ResolvedIdentityConfig } from './identity.config.js';
import { IDENTITY_CONFIG_BOUNDS } from './identity-bounds.config.js';
import { belongsToEnvironment, environmentWords, fail } from './identity-config.rules.js';

const NAMESPACE = new RegExp(IDENTITY_CONFIG_BOUNDS.storageNamespace.pattern);
const RINGS = ['sessionPepper', 'recoveryPepper', 'devicePepper', 'servicePepper'] as const;
const KEYS = ['auditKey', 'encryptionKey', 'signingKey'] as const;

/**
 * Every configured secret reference with its option path (peppers with previous versions, audit,
 * encryption and signing keys, and the bootstrap secret when configured).
 *
 * @example
 * for (const { path, reference } of listSecretReferences(config)) console.log(path, reference);
 */
export function listSecretReferences(config: ResolvedIdentityConfig): { path: string; reference: string }[] {
  const list: { path: string; reference: string }[] = [];
  for (const ring of RINGS) {
    const refs = config.secrets[ring];
    list.push({ path: `secrets.${ring}.current`, reference: refs.current });
    (refs.previous ?? []).forEach((reference, i) => list.push({ path: `secrets.${ring}.previous[${i}]`, reference }));
  }
  for (const key of KEYS) list.push({ path: `secrets.${key}`, reference: config.secrets[key] });
  if (config.bootstrap.secretRef !== undefined)
    list.push({ path: 'bootstrap.secretRef', reference: config.bootstrap.secretRef });
  return list;
}

/**
 * Secret references: well-formed `<scheme>:<name>[@vN]`; distinct (after canonicalisation,
 * `env:X` = `env:X@v1`); each name contains the environment name as a separate word and no other
 * environment name; key rings hold ≤ 5 previous versions, all below the current version.
 *
 * @example
 * validateSecretReferences(resolveIdentityConfig(input)); // throws secret_reference_environment for env:TESSERA_STAGING_X in production
 */
export function validateSecretReferences(config: ResolvedIdentityConfig): void {
  const seen = new Map<string, string>();
  for (const { path, reference } of listSecretReferences(config)) {
    const parsed = parseSecretReference(reference);
    if (parsed === undefined) {
      fail(
        'secret_reference_invalid',
        `${path} must be a secret reference <scheme>:<name>[@v<n>] (e.g. "env:TESSERA_${config.environment.toUpperCase()}_SESSION_PEPPER")`,
      );
    }
    const previousPath = seen.get(parsed.canonical);
    if (previousPath !== undefined) {
      fail(
        'secret_reference_duplicate',
        `${path} names the same secret as ${previousPath}; every secret must be distinct`,
      );
    }
    seen.set(parsed.canonical, path);
    if (!belongsToEnvironment(parsed.name, config.environment)) {
      const others = environmentWords(parsed.name).filter((word) => word !== config.environment);
      const problem =
        others.length > 0 ? `names another environment (${others.join(', ')})` : `does not name the environment`;
      fail(
        'secret_reference_environment',
        `${path} ${problem}; a ${config.environment} secret name must contain the word "${config.environment.toUpperCase()}" (e.g. "env:TESSERA_${config.environment.toUpperCase()}_AUDIT_KEY") and no other environment name`,
      );
    }
  }
  for (const ring of RINGS) validateRing(ring, config.secrets[ring].current, config.secrets[ring].previous ?? []);
}

function validateRing(ring: string, current: string, previous: readonly string[]): void {
  if (previous.length > MAX_PREVIOUS_KEY_VERSIONS) {
    fail(
      'key_ring',
      `secrets.${ring}.previous lists ${previous.length} versions; at most ${MAX_PREVIOUS_KEY_VERSIONS} previous versions are kept (drop the oldest)`,
    );
  }
  const currentVersion = (parseSecretReference(current) as SecretReference).version;
  const versions = new Set<number>([currentVersion]);
  previous.forEach((reference, i) => {
    const version = (parseSecretReference(reference) as SecretReference).version;
    if (version >= currentVersion) {
      fail(
        'key_ring',
        `secrets.${ring}.previous[${i}] has version ${version}, which must be below the current version ${currentVersion} (mark versions with @v<n>)`,
      );
    }
    if (versions.has(version)) fail('key_ring', `secrets.${ring}.previous[${i}] repeats key version ${version}`);
    versions.add(version);
  });
}

/**
 * Storage namespace: `^[a-z][a-z0-9_-]{2,63}$`, containing the environment name as a separate
 * word (`_`/`-`-delimited) and no other environment name.
 *
 * @example
 * validateStorageNamespace(resolveIdentityConfig({ ...input, storageNamespace: 'tessera_staging' })); // throws in production
 */
export function validateStorageNamespace(config: ResolvedIdentityConfig): void {
  const namespace = config.storageNamespace;
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    fail('storage_namespace', `storageNamespace must match ${NAMESPACE.source} (e.g. "tessera_${config.environment}")`);
  }
  if (!belongsToEnvironment(namespace, config.environment)) {
    fail(
      'storage_namespace',
      `storageNamespace must contain the word "${config.environment}" and no other environment name (e.g. "tessera_${config.environment}")`,
    );
  }
}
