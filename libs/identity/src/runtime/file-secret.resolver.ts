import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import {
  createEnvSecretResolver,
  parseSecretReference,
  SecretResolutionError,
  type SecretResolver,
} from './secret.resolver.js';

/**
 * Resolves `file:` references: `file:/absolute/path[@vN]` reads the file at that path (the
 * version is a label: give each version its own file, e.g. `file:/run/secrets/tessera_production_session_pepper_v2@v2`).
 * The secret is the file's bytes without trailing line breaks (`openssl rand -base64 32 > file`
 * writes one); a missing, unreadable or empty file fails, naming the reference only.
 *
 * @example
 * const resolver = createFileSecretResolver();
 * await resolver.resolve('file:/run/secrets/tessera_production_audit_key');
 */
export function createFileSecretResolver(): SecretResolver {
  return {
    async resolve(reference: string): Promise<Buffer> {
      const parsed = parseSecretReference(reference);
      if (parsed === undefined || parsed.scheme !== 'file' || !isAbsolute(parsed.name)) {
        throw new SecretResolutionError(reference, 'not a file:/absolute/path[@vN] reference');
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(parsed.name);
      } catch (error) {
        // The errno code (ENOENT, EACCES, EISDIR) says what to fix; the path is already in the reference.
        const code = (error as NodeJS.ErrnoException).code ?? 'read error';
        throw new SecretResolutionError(reference, `file cannot be read (${code})`);
      }
      let end = bytes.byteLength;
      while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
      if (end === 0) throw new SecretResolutionError(reference, 'file is empty');
      return bytes.subarray(0, end);
    },
  };
}

/**
 * The default resolver of the Node runtime: `env:` references from `env` (see
 * `createEnvSecretResolver`) and `file:` references from the file system (see
 * {@link createFileSecretResolver}); any other scheme fails.
 *
 * @example
 * createNodeIdentityRuntime({ secrets: createEnvAndFileSecretResolver(process.env) });
 */
export function createEnvAndFileSecretResolver(
  env: Readonly<Record<string, string | undefined>> = process.env,
): SecretResolver {
  const byScheme: Readonly<Record<string, SecretResolver>> = {
    env: createEnvSecretResolver(env),
    file: createFileSecretResolver(),
  };
  return {
    resolve(reference: string): Promise<Buffer> {
      const scheme = parseSecretReference(reference)?.scheme;
      const resolver = scheme === undefined ? undefined : byScheme[scheme];
      if (resolver === undefined) {
        return Promise.reject(new SecretResolutionError(reference, 'only env: and file: references are supported'));
      }
      return resolver.resolve(reference);
    },
  };
}
