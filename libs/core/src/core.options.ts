import type { CoreAuthenticationProvider } from './authentication-provider.js';
import { assertCoreAuthenticationProvider } from './core-authentication.js';
import { CoreConfigError } from './core.errors.js';

/**
 * `CoreModule.forRoot(...)` / `forRootAsync` options.
 *
 * @example
 * const options: CoreModuleOptions = { provider: new BasicAuthenticationProvider({ realm: 'metrics', verify }) };
 */
export interface CoreModuleOptions {
  /** The provider `CoreAuthGuard` authenticates with (e.g. an `ApiKeyAuthenticationProvider`). */
  provider: CoreAuthenticationProvider;
}

/**
 * Validates module options once, failing the boot with an actionable {@link CoreConfigError}.
 *
 * @example
 * const options = validateCoreModuleOptions({ provider });
 */
export function validateCoreModuleOptions(options: CoreModuleOptions): CoreModuleOptions {
  if (options === null || typeof options !== 'object') {
    throw new CoreConfigError(
      'invalid_module_options',
      'CoreModule: options must be an object such as { provider: new ApiKeyAuthenticationProvider({ ... }) }',
    );
  }
  if (options.provider === undefined) {
    throw new CoreConfigError(
      'invalid_module_options',
      'CoreModule: options.provider is required (an ApiKeyAuthenticationProvider, a BasicAuthenticationProvider or your own CoreAuthenticationProvider)',
    );
  }
  assertCoreAuthenticationProvider(options.provider, 'CoreModule options.provider');
  return options;
}
