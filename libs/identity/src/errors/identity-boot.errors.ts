/**
 * Rules whose violation makes `validateIdentityConfig` / `resolveIdentityConfig` fail.
 *
 * @example
 * if (error instanceof IdentityConfigError && error.rule === 'origin_not_exact') { ... }
 */
export type IdentityConfigRule =
  | 'invalid_option'
  | 'public_base_url'
  | 'origin_not_exact'
  | 'origin_insecure'
  | 'origin_outside_rp_id'
  | 'rp_invalid'
  | 'registration_policy'
  | 'bootstrap_secret_required'
  | 'bootstrap_secret_forbidden'
  | 'secret_reference_invalid'
  | 'secret_reference_duplicate'
  | 'secret_reference_environment'
  | 'key_ring'
  | 'storage_namespace'
  | 'lifetime_bounds'
  | 'limit_bounds'
  | 'session_cookie'
  | 'rate_limit_bounds'
  | 'rate_limit_disabled'
  | 'store_kind'
  | 'forwarding'
  | 'capability_allowlist'
  | 'request_id_header'
  | 'audit';

/**
 * An invalid identity configuration, thrown at boot (never a client answer). The message says
 * what is wrong and how to fix it; `rule` is the stable machine-readable rule id.
 *
 * @example
 * try {
 *   validateIdentityConfig(resolveIdentityConfig(input));
 * } catch (error) {
 *   if (error instanceof IdentityConfigError) console.error(error.rule, error.message);
 * }
 */
export class IdentityConfigError extends Error {
  override name = 'IdentityConfigError';

  constructor(
    /** Stable id of the violated rule. */
    readonly rule: IdentityConfigRule,
    message: string,
  ) {
    super(`Invalid identity configuration: ${message}`);
  }
}

/**
 * Ids of the startup checks of `requireReady` (`identity-model.md` §10).
 *
 * @example
 * logger.error(`identity startup check failed: ${error.check}`);
 */
export type IdentityStartupCheck =
  | 'crypto_self_test'
  | 'http_client_self_test'
  | 'http_client_redirects'
  | 'clock_range'
  | 'random_source'
  | 'known_answers'
  | 'public_key_verification'
  | 'secrets'
  | 'crypto_capabilities'
  | 'rate_limiter'
  | 'environment_marker';

/**
 * The only message a startup failure carries.
 *
 * @example
 * expect(error.message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
 */
export const IDENTITY_STARTUP_ERROR_MESSAGE = 'The identity service failed its startup checks';

/**
 * A failed startup self-test. The message is generic (no detail); the failed check id and the
 * original cause are kept on the instance for operator logs only.
 *
 * @example
 * try { await requireReady(runtime, config); } catch (error) {
 *   if (error instanceof IdentityStartupError) logger.error(error.message, { check: error.check });
 * }
 */
export class IdentityStartupError extends Error {
  override name = 'IdentityStartupError';

  constructor(
    /** Which check failed (for logs; never shown to clients). */
    readonly check: IdentityStartupCheck,
    options: { cause?: unknown } = {},
  ) {
    super(IDENTITY_STARTUP_ERROR_MESSAGE, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
