import type { Exchange } from '@tessera/web';
import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { parseBasicAuthorization, type BasicCredentials } from './basic-credentials.js';
import { CoreConfigError } from './core.errors.js';
import { createCorePrincipal, type CorePrincipal, type CorePrincipalInit } from './principal.js';

/**
 * Checks Basic credentials; `null` rejects them (401). Compare secrets with `constantTimeEqual`.
 *
 * @example
 * const verify: BasicCredentialsVerifier = async ({ userId, password }) =>
 *   (await users.checkPassword(userId, password)) ? { kind: 'basic', id: userId, roles: ['operator'] } : null;
 */
export type BasicCredentialsVerifier = (
  credentials: BasicCredentials,
  exchange: Exchange,
) => Promise<CorePrincipalInit | null>;

/**
 * Options of {@link BasicAuthenticationProvider}.
 *
 * @example
 * const options: BasicAuthenticationOptions = { realm: 'metrics', verify };
 */
export interface BasicAuthenticationOptions {
  /** Realm named in `WWW-Authenticate` (printable ASCII without `"` or `\`, 1–128 characters). */
  realm: string;
  verify: BasicCredentialsVerifier;
}

const REALM = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/**
 * HTTP Basic authentication (RFC 7617) for endpoints such as a metrics scrape: strict parsing
 * ({@link parseBasicAuthorization}), a verifier callback, and
 * `WWW-Authenticate: Basic realm="…", charset="UTF-8"` on every 401. A repeated `Authorization`
 * header, another scheme or malformed credentials → `null` without calling the verifier.
 *
 * @example
 * const provider = new BasicAuthenticationProvider({
 *   realm: 'metrics',
 *   verify: async ({ userId, password }) => {
 *     const userOk = constantTimeEqual(userId, 'prometheus');
 *     const passwordOk = constantTimeEqual(password, process.env.METRICS_PASSWORD!);
 *     return userOk && passwordOk ? { kind: 'basic', id: userId, permissions: ['metrics.read'] } : null;
 *   },
 * });
 */
export class BasicAuthenticationProvider implements CoreAuthenticationProvider {
  private readonly header: string;
  private readonly verify: BasicCredentialsVerifier;

  constructor(options: BasicAuthenticationOptions) {
    if (typeof options?.realm !== 'string' || !REALM.test(options.realm)) {
      invalid('realm must be 1-128 printable ASCII characters without " or \\');
    }
    if (typeof options.verify !== 'function') invalid('verify must be a function');
    this.header = `Basic realm="${options.realm}", charset="UTF-8"`;
    this.verify = options.verify;
  }

  async authenticate(exchange: Exchange): Promise<CorePrincipal | null> {
    const values = exchange.headerValues('authorization');
    if (values.length !== 1) return null;
    const credentials = parseBasicAuthorization(values[0]!);
    if (credentials === null) return null;
    const principal = await this.verify(credentials, exchange);
    return principal === null || principal === undefined ? null : createCorePrincipal(principal);
  }

  challenge(): string {
    return this.header;
  }
}

function invalid(message: string): never {
  throw new CoreConfigError('invalid_provider_options', `BasicAuthenticationProvider: ${message}`);
}
