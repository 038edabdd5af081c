const REFERENCE = /^([a-z][a-z0-9+.-]*):([A-Za-z0-9_./-]+?)(?:@v([1-9][0-9]{0,8}))?$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * A parsed secret reference `<scheme>:<name>[@v<version>]`; no version means version 1.
 *
 * @example
 * parseSecretReference('env:TESSERA_PRODUCTION_SESSION_PEPPER@v2');
 * // { scheme: 'env', name: 'TESSERA_PRODUCTION_SESSION_PEPPER', version: 2, canonical: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2' }
 */
export interface SecretReference {
  readonly scheme: string;
  readonly name: string;
  readonly version: number;
  /** `<scheme>:<name>@v<version>`: two references naming the same secret have the same form. */
  readonly canonical: string;
}

/**
 * Parses a secret reference; `undefined` when it does not follow `<scheme>:<name>[@v<n>]`.
 *
 * @example
 * parseSecretReference('env:TESSERA_TEST_AUDIT_KEY')?.version; // 1
 */
export function parseSecretReference(reference: unknown): SecretReference | undefined {
  if (typeof reference !== 'string' || reference.length > 512) return undefined;
  const match = REFERENCE.exec(reference);
  if (match === null) return undefined;
  const [, scheme, name, version] = match as unknown as [string, string, string, string | undefined];
  const v = version === undefined ? 1 : Number(version);
  return { scheme, name, version: v, canonical: `${scheme}:${name}@v${v}` };
}

const NOT_A_REFERENCE = '(not a reference)';

/**
 * A secret could not be resolved. The message names the reference, never a value.
 *
 * @example
 * catch (error) { if (error instanceof SecretResolutionError) logger.error(error.reference); }
 */
export class SecretResolutionError extends Error {
  override name = 'SecretResolutionError';

  /** The reference, or `'(not a reference)'` when the input does not parse (it may be a pasted secret). */
  readonly reference: string;

  constructor(reference: unknown, reason: string) {
    const shown =
      typeof reference === 'string' && parseSecretReference(reference) !== undefined ? reference : NOT_A_REFERENCE;
    super(`secret ${shown}: ${reason}`);
    this.reference = shown;
  }
}

/**
 * Resolves versioned secret references to their bytes.
 *
 * @example
 * const pepper = await runtime.secrets.resolve('env:TESSERA_PRODUCTION_SESSION_PEPPER@v2');
 */
export interface SecretResolver {
  resolve(reference: string): Promise<Buffer>;
}

/**
 * Resolves `env:` references from environment variables: `env:NAME` and `env:NAME@v1` read
 * `NAME`, `env:NAME@vN` (N ≥ 2) reads `NAME_VN`. The secret is the UTF-8 bytes of the value;
 * an absent or empty variable fails.
 *
 * @example
 * // TESSERA_PRODUCTION_SESSION_PEPPER_V2=... in the environment
 * const resolver = createEnvSecretResolver();
 * await resolver.resolve('env:TESSERA_PRODUCTION_SESSION_PEPPER@v2');
 */
export function createEnvSecretResolver(
  env: Readonly<Record<string, string | undefined>> = process.env,
): SecretResolver {
  return {
    async resolve(reference: string): Promise<Buffer> {
      const parsed = parseSecretReference(reference);
      if (parsed === undefined || parsed.scheme !== 'env' || !ENV_NAME.test(parsed.name)) {
        throw new SecretResolutionError(reference, 'not an env:NAME[@vN] reference');
      }
      const variable = envVariableName(parsed);
      const value = env[variable];
      if (value === undefined || value === '')
        throw new SecretResolutionError(reference, `variable ${variable} is not set`);
      return Buffer.from(value, 'utf8');
    },
  };
}

/**
 * The environment variable an `env:` reference reads.
 *
 * @example
 * envVariableName(parseSecretReference('env:X@v3')!); // 'X_V3'
 */
export function envVariableName(reference: SecretReference): string {
  return reference.version === 1 ? reference.name : `${reference.name}_V${reference.version}`;
}

/**
 * A resolver over a fixed map (tests, or secrets loaded by the host): keys are references
 * (`env:X` and `env:X@v1` are the same key), values are UTF-8 strings or bytes.
 *
 * @example
 * const secrets = createInMemorySecretResolver({ 'env:TESSERA_TEST_SESSION_PEPPER': 'a-test-pepper-of-32-characters!!' });
 */
export function createInMemorySecretResolver(
  secrets: Readonly<Record<string, string | Uint8Array>> | ReadonlyMap<string, string | Uint8Array>,
): SecretResolver {
  const table = new Map<string, Buffer>();
  const entries = secrets instanceof Map ? [...secrets.entries()] : Object.entries(secrets);
  for (const [reference, value] of entries) {
    const parsed = parseSecretReference(reference);
    if (parsed === undefined) throw new SecretResolutionError(reference, 'not a <scheme>:<name>[@vN] reference');
    table.set(parsed.canonical, typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value));
  }
  return {
    async resolve(reference: string): Promise<Buffer> {
      const parsed = parseSecretReference(reference);
      const value = parsed === undefined ? undefined : table.get(parsed.canonical);
      if (value === undefined || value.byteLength === 0) throw new SecretResolutionError(reference, 'unknown');
      return Buffer.from(value);
    },
  };
}
