import { systemClock } from './frozen.clock.js';
import type {
  IdentityClock,
  IdentityCrypto,
  IdentityHttpClient,
  IdentityRuntime,
  RandomSource,
} from './identity.runtime.js';
import { createNodeCryptoRandom } from './node-random.source.js';
import { createNodeIdentityCrypto } from './node-crypto.provider.js';
import { createNodeHttpClient } from './node-http.client.js';
import type { SecretResolver } from './secret.resolver.js';
import { createEnvAndFileSecretResolver } from './file-secret.resolver.js';

/**
 * Replacements for parts of the default Node runtime.
 *
 * @example
 * createNodeIdentityRuntime({ clock: new FrozenClock('2026-07-14T08:15:30Z'), secrets: createInMemorySecretResolver(map) });
 */
export interface NodeIdentityRuntimeOptions {
  /** @default the system clock */
  clock?: IdentityClock;
  /** @default `crypto.randomFillSync` */
  random?: RandomSource;
  /** @default {@link createNodeIdentityCrypto} */
  crypto?: IdentityCrypto;
  /** @default {@link createNodeHttpClient} */
  httpClient?: IdentityHttpClient;
  /** @default `env:` references from `process.env` and `file:` references from the file system */
  secrets?: SecretResolver;
}

/**
 * The default identity runtime on Node.js: system clock, `node:crypto` CSPRNG and primitives,
 * the `node:https` client, `env:` and `file:` secret references.
 *
 * @example
 * IdentityModule.forRoot({ config, runtime: createNodeIdentityRuntime(), store });
 */
export function createNodeIdentityRuntime(options: NodeIdentityRuntimeOptions = {}): IdentityRuntime {
  return Object.freeze({
    clock: options.clock ?? systemClock,
    random: options.random ?? createNodeCryptoRandom(),
    crypto: options.crypto ?? createNodeIdentityCrypto(),
    httpClient: options.httpClient ?? createNodeHttpClient(),
    secrets: options.secrets ?? createEnvAndFileSecretResolver(),
  });
}
