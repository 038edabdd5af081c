/**
 * Stable codes of {@link CoreConfigError}.
 *
 * @example
 * const isBadDecorator = error instanceof CoreConfigError && error.code === 'invalid_requirement';
 */
export type CoreConfigErrorCode =
  | 'invalid_principal'
  | 'invalid_requirement'
  | 'invalid_provider_options'
  | 'invalid_module_options'
  | 'invalid_session_ttl'
  | 'invalid_session_store_options'
  | 'principal_unavailable';

/**
 * A configuration or programming error of `@tessera/core` (bad options, a malformed principal
 * returned by a provider, an empty permission list): thrown at boot or when a decorator is applied,
 * never turned into a client answer. A request that reaches one answers 500 without its text.
 *
 * @example
 * try {
 *   new ApiKeyAuthenticationProvider({ keys: [] });
 * } catch (error) {
 *   if (error instanceof CoreConfigError) console.error(error.code, error.message);
 * }
 */
export class CoreConfigError extends Error {
  override name = 'CoreConfigError';

  constructor(
    /** Stable machine-readable code. */
    readonly code: CoreConfigErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
