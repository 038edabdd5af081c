import { parseSecretReference, SecretResolutionError, type SecretResolver } from './secret.resolver.js';

/**
 * At most this many previous versions per pepper (`identity-model.md` §2, §4).
 *
 * @example
 * if (previous.length > MAX_PREVIOUS_KEY_VERSIONS) throw new RangeError('too many versions');
 */
export const MAX_PREVIOUS_KEY_VERSIONS = 5;
/**
 * Every resolved secret must have at least this many bytes (`identity-model.md` §10, check 7).
 *
 * @example
 * if (key.byteLength < MIN_SECRET_BYTES) throw new RangeError('secret too short');
 */
export const MIN_SECRET_BYTES = 16;

/**
 * The configured references of one pepper: the current one and up to 5 previous ones.
 *
 * @example
 * const refs: KeyRingReferences = { current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2', previous: ['env:TESSERA_PRODUCTION_SESSION_PEPPER'] };
 */
export interface KeyRingReferences {
  /** The version new digests are made with, e.g. `env:TESSERA_PRODUCTION_SESSION_PEPPER@v2`. */
  readonly current: string;
  /** Older versions, still accepted for digests made with them; each below the current version. */
  readonly previous?: readonly string[];
}

/**
 * One resolved key with its version (the version stored next to each digest).
 *
 * @example
 * const { version, key } = ring.current;
 */
export interface KeyRingEntry {
  /** `v<n>`, from the reference's `@v<n>` (none = `v1`); stored next to every digest. */
  readonly version: string;
  readonly reference: string;
  readonly key: Buffer;
}

/**
 * A pepper's keys: `current` for new digests, then previous versions; verification looks the
 * stored key version up with `byVersion`.
 *
 * @example
 * const key = ring.byVersion(session.keyVersion)?.key;
 * for (const entry of ring.entries) tryDigest(entry.key); // current first, then previous
 */
export interface KeyRing {
  readonly current: KeyRingEntry;
  readonly previous: readonly KeyRingEntry[];
  /** Current first, then previous in configured order. */
  readonly entries: readonly KeyRingEntry[];
  byVersion(version: string): KeyRingEntry | undefined;
}

/**
 * Builds a key ring, refusing more than 5 previous versions, repeated versions, previous
 * versions not below the current one, and keys shorter than 16 bytes.
 *
 * @example
 * const ring = createKeyRing({ version: 'v2', reference: 'memory:k@v2', key }, [{ version: 'v1', reference: 'memory:k', key: old }]);
 */
export function createKeyRing(current: KeyRingEntry, previous: readonly KeyRingEntry[] = []): KeyRing {
  if (previous.length > MAX_PREVIOUS_KEY_VERSIONS) {
    throw new RangeError(`a key ring holds at most ${MAX_PREVIOUS_KEY_VERSIONS} previous versions`);
  }
  const byVersion = new Map<string, KeyRingEntry>();
  const currentNumber = versionNumber(current.version);
  for (const entry of [current, ...previous]) {
    const number = versionNumber(entry.version);
    if (byVersion.has(entry.version)) throw new RangeError(`key version ${entry.version} appears twice`);
    if (entry !== current && number >= currentNumber) {
      throw new RangeError(`previous key version ${entry.version} is not below the current version ${current.version}`);
    }
    if (entry.key.byteLength < MIN_SECRET_BYTES)
      throw new RangeError(`key version ${entry.version} is shorter than 16 bytes`);
    byVersion.set(entry.version, Object.freeze({ ...entry }));
  }
  const entries = Object.freeze([...byVersion.values()]);
  return Object.freeze({
    current: entries[0]!,
    previous: Object.freeze(entries.slice(1)),
    entries,
    byVersion: (version: string) => byVersion.get(version),
  });
}

/**
 * Resolves every reference of a pepper through `resolver` into a {@link KeyRing}; versions come
 * from the references (`@vN`, none = 1).
 *
 * @example
 * const sessionPeppers = await resolveKeyRing(runtime.secrets, config.secrets.sessionPepper);
 */
export async function resolveKeyRing(resolver: SecretResolver, references: KeyRingReferences): Promise<KeyRing> {
  const resolveEntry = async (reference: string): Promise<KeyRingEntry> => {
    const parsed = parseSecretReference(reference);
    if (parsed === undefined)
      throw new SecretResolutionError(String(reference), 'not a <scheme>:<name>[@vN] reference');
    return { version: `v${parsed.version}`, reference, key: await resolver.resolve(reference) };
  };
  const current = await resolveEntry(references.current);
  const previous = await Promise.all((references.previous ?? []).map(resolveEntry));
  return createKeyRing(current, previous);
}

function versionNumber(version: string): number {
  const match = /^v([1-9][0-9]{0,8})$/.exec(version);
  if (match === null) throw new RangeError(`key versions are v<n> with n >= 1 (got ${version})`);
  return Number(match[1]);
}
