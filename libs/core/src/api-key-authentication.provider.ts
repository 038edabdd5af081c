import type { Exchange } from '@tessera/web';
import crypto from 'node:crypto';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { CoreConfigError } from './core.errors.js';
import { digestsEqual, isSha256Hex } from './digest.js';
import { createCorePrincipal, type CorePrincipal, type CorePrincipalInit } from './principal.js';

/**
 * One configured API key: its SHA-256 digest (`sha256Hex(key)`) and who it authenticates.
 *
 * @example
 * const entry: ApiKeyEntry = { digest: sha256Hex(key), principal: { kind: 'api_key', id: 'grafana', permissions: ['metrics.read'] } };
 */
export interface ApiKeyEntry {
  /** Lower-case hex SHA-256 of the key; the key itself is never configured. */
  digest: string;
  principal: CorePrincipalInit;
}

/**
 * Options of {@link ApiKeyAuthenticationProvider}; at least one of `keys` and `resolve`.
 *
 * @example
 * const options: ApiKeyAuthenticationOptions = { header: 'authorization', scheme: 'Bearer', resolve: (digest) => keys.principalFor(digest) };
 */
export interface ApiKeyAuthenticationOptions {
  /** Request header carrying the key. @default 'x-api-key' */
  header?: string;
  /** Expect `<scheme> <key>` in the header (e.g. `Bearer` with `header: 'authorization'`); unset = the bare key. */
  scheme?: string;
  /** Statically configured keys, by digest. Every entry is compared on every request. */
  keys?: readonly ApiKeyEntry[];
  /** Looks a key up by its hex SHA-256 digest (e.g. in a table); asked only when no static key matched. */
  resolve?: (digest: string) => Promise<CorePrincipalInit | null>;
  /** Longer presented keys are rejected without hashing. @default 512 */
  maxKeyLength?: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KEY = /^[\x21-\x7e]+$/;

/**
 * Authenticates an API key from a header. Presented keys are hashed with SHA-256 and compared
 * with `crypto.timingSafeEqual` against every configured digest (no early exit), or looked up by
 * digest through `resolve`; keys are never stored, logged or echoed. Absent, repeated, malformed
 * or unknown keys → `null` (401).
 *
 * @example
 * const provider = new ApiKeyAuthenticationProvider({
 *   header: 'x-api-key',
 *   keys: [{ digest: process.env.METRICS_KEY_SHA256!, principal: { kind: 'api_key', id: 'grafana', permissions: ['metrics.read'] } }],
 * });
 */
export class ApiKeyAuthenticationProvider implements CoreAuthenticationProvider {
  private readonly header: string;
  private readonly scheme: string | undefined;
  private readonly keys: readonly { digest: Buffer; principal: CorePrincipal }[];
  private readonly resolver: ((digest: string) => Promise<CorePrincipalInit | null>) | undefined;
  private readonly maxKeyLength: number;

  constructor(options: ApiKeyAuthenticationOptions) {
    const header = options.header ?? 'x-api-key';
    if (!TOKEN.test(header)) invalid(`header ${JSON.stringify(header)} is not a valid header name`);
    if (options.scheme !== undefined && !TOKEN.test(options.scheme))
      invalid(`scheme ${JSON.stringify(options.scheme)} is not a valid auth-scheme`);
    const maxKeyLength = options.maxKeyLength ?? 512;
    if (!Number.isInteger(maxKeyLength) || maxKeyLength < 16 || maxKeyLength > 8192)
      invalid('maxKeyLength must be an integer in 16..8192');
    if (options.resolve !== undefined && typeof options.resolve !== 'function') invalid('resolve must be a function');
    const entries = options.keys ?? [];
    if (!Array.isArray(entries)) invalid('keys must be an array');
    if (entries.length === 0 && options.resolve === undefined)
      invalid('configure at least one key digest in keys, or a resolve function');
    const seen = new Set<string>();
    this.keys = entries.map((entry, index) => {
      if (!isSha256Hex(entry?.digest)) {
        invalid(`keys[${index}].digest must be a lower-case hex SHA-256 digest (sha256Hex(key)), not the key itself`);
      }
      if (seen.has(entry.digest)) invalid(`keys[${index}] repeats the digest of an earlier key`);
      seen.add(entry.digest);
      return { digest: Buffer.from(entry.digest, 'hex'), principal: createCorePrincipal(entry.principal) };
    });
    this.header = header.toLowerCase();
    this.scheme = options.scheme?.toLowerCase();
    this.resolver = options.resolve;
    this.maxKeyLength = maxKeyLength;
  }

  async authenticate(exchange: Exchange): Promise<CorePrincipal | null> {
    const key = this.presentedKey(exchange);
    if (key === null) return null;
    const digest = crypto.createHash('sha256').update(key, 'utf8').digest();
    let found: CorePrincipal | null = null;
    // Every entry is compared so the time taken does not depend on which key matched.
    for (const entry of this.keys) {
      if (digestsEqual(digest, entry.digest) && found === null) found = entry.principal;
    }
    if (found !== null || this.resolver === undefined) return found;
    const resolved = await this.resolver(digest.toString('hex'));
    return resolved === null || resolved === undefined ? null : createCorePrincipal(resolved);
  }

  private presentedKey(exchange: Exchange): string | null {
    const values = exchange.headerValues(this.header);
    if (values.length !== 1) return null;
    let value = values[0]!.trim();
    if (this.scheme !== undefined) {
      const space = value.indexOf(' ');
      if (space === -1 || value.slice(0, space).toLowerCase() !== this.scheme) return null;
      value = value.slice(space + 1).trimStart();
    }
    if (value.length === 0 || value.length > this.maxKeyLength || !KEY.test(value)) return null;
    return value;
  }
}

function invalid(message: string): never {
  throw new CoreConfigError('invalid_provider_options', `ApiKeyAuthenticationProvider: ${message}`);
}
