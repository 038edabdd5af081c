import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Exchange } from '@tessera/web';
import { IdentityStartupError, type IdentityStartupCheck } from './errors/identity-boot.errors.js';
import type { IdentityContext } from './context/identity-context.js';
import type { IdentityKernel } from './identity-kernel.js';
import { getIdentityContext } from './http/identity-exchange.js';
import { IDENTITY_KERNEL } from './identity.tokens.js';

/**
 * The identity platform's service: `start()` runs the store initializer (environment marker,
 * identity-model §9.7) and the fail-closed gates during `onApplicationBootstrap`; failure aborts
 * bootstrap with a generic error. The runtime self-tests already ran when the kernel was built.
 */
@Injectable()
export class IdentityService implements OnApplicationBootstrap {
  private startedOk = false;

  constructor(@Inject(IDENTITY_KERNEL) private readonly kernel: IdentityKernel) {}

  /** `true` once {@link start} passed (the runtime self-tests passed before the kernel existed). */
  get started(): boolean {
    return this.startedOk;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  /**
   * Environment marker and schema version check (the marker is provisioned automatically in
   * development/test, which migrated at start) and limiter gate.
   */
  async start(): Promise<void> {
    const { config, store, rateLimiter } = this.kernel;
    const production = config.environment === 'staging' || config.environment === 'production';
    if (production && !rateLimiter.shared) throw this.fail('rate_limiter');
    const marker = { environment: config.environment, namespace: config.storageNamespace };
    const result = production ? await store.verifyEnvironment(marker) : await store.provisionEnvironment(marker);
    if (!result.ok) throw this.fail(result.refusal ?? 'environment_marker');
    this.startedOk = true;
  }

  /** The identity of a request already resolved by the pipeline; never creates anything. */
  resolve(exchange: Exchange): IdentityContext | undefined {
    return getIdentityContext(exchange);
  }

  private fail(check: IdentityStartupCheck): IdentityStartupError {
    const error = new IdentityStartupError(check);
    logStartupFailure(error);
    return error;
  }
}

/**
 * Logs a failed startup check for the operator: the check id and its fixed hint, never a value
 * or the cause's text.
 *
 * @example
 * requireReady(runtime, config).catch((error) => { if (error instanceof IdentityStartupError) logStartupFailure(error); throw error; });
 */
export function logStartupFailure(error: IdentityStartupError): void {
  new Logger('Identity').error(`Identity startup check failed: ${error.check}. ${error.hint}`);
}
