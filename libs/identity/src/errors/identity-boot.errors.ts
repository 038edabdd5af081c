/**
 * Rules whose violation makes `validateIdentityConfig` / `resolveIdentityConfig` fail.
 *
 * @example
 * if (error instanceof IdentityConfigError && error.rule === 'origin_not_exact') { ... }
 */
export type IdentityConfigRule =
  | 'invalid_option'
  | 'environment_variable'
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
  | 'audit'
  | 'maintenance'
  | 'federation'
  | 'scim'
  | 'invitations'
  | 'health';

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
 * An invalid identity configuration read from environment variables (`identityConfigFromEnv`):
 * `variable` names the variable to fix (never its value).
 *
 * @example
 * try { identityConfigFromEnv(process.env); } catch (error) {
 *   if (error instanceof IdentityConfigEnvError) console.error(`fix ${error.variable}: ${error.message}`);
 * }
 */
export class IdentityConfigEnvError extends IdentityConfigError {
  constructor(
    rule: IdentityConfigRule,
    /** The environment variable to set or fix. */
    readonly variable: string,
    message: string,
  ) {
    super(rule, `${variable}: ${message}`);
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
  | 'environment_marker'
  | 'schema_version'
  | 'store_engine';

/**
 * The only message a startup failure carries.
 *
 * @example
 * expect(error.message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
 */
export const IDENTITY_STARTUP_ERROR_MESSAGE = 'The identity service failed its startup checks';

/**
 * What the operator does about each failed startup check: a fixed sentence per check, never a
 * value, logged next to the check id (the error's own message stays generic).
 *
 * @example
 * logger.error(`Identity startup check failed: ${error.check}. ${IDENTITY_STARTUP_CHECK_HINTS[error.check]}`);
 */
export const IDENTITY_STARTUP_CHECK_HINTS: Readonly<Record<IdentityStartupCheck, string>> = Object.freeze({
  crypto_self_test:
    "The crypto provider's selfTest() did not return true; use createNodeIdentityCrypto() or fix the custom provider.",
  crypto_capabilities:
    'The crypto provider must declare the capabilities sha256, hmac_sha256, p256_public_key_validate, es256_verify, rsa_sha256_verify and ed25519_verify.',
  http_client_redirects: 'The HTTP client must never follow redirects and declare followsRedirects: false.',
  http_client_self_test:
    'In staging/production the HTTP client must implement selfTest() returning true without any network request (createNodeHttpClient() does; it fails while NODE_TLS_REJECT_UNAUTHORIZED=0).',
  clock_range: 'The wall clock must read between 2020-01-01 and 2200-01-01; fix the system time or the injected clock.',
  random_source: 'The random source must return distinct, not all-zero 32-byte draws; use the Node CSPRNG.',
  known_answers:
    'The crypto provider failed the SHA-256 / HMAC-SHA-256 / constant-time comparison known answers; replace it.',
  public_key_verification:
    'The crypto provider failed the P-256 / ES256 / RSA-SHA256 / Ed25519 verification vectors; replace it.',
  secrets:
    'Every configured secret reference (peppers with previous versions, audit, encryption and signing keys, the bootstrap secret while pending) must resolve to at least 16 bytes, each value distinct; set the variables the references name.',
  rate_limiter:
    'Staging/production need a rate limiter shared by every instance (IdentityMikroOrmModule provides the PostgreSQL one); an in-process limiter is refused.',
  environment_marker:
    "The database's environment marker is missing or names another environment or storage namespace than this configuration. For a new staging/production database, run the provision command (e.g. `npm run provision`) once with the same environment and namespace; a database provisioned for another environment stays so (the marker is never overwritten): start the app with that environment's configuration, or point DATABASE_URL at this environment's database. Also check that the database is reachable.",
  store_engine:
    'Staging/production need a PostgreSQL server: the live database connection reports embedded PGlite (or could not be asked). Point DATABASE_URL at the PostgreSQL server of this environment and check that it is reachable.',
  schema_version:
    "The identity schema is not at this build's latest migration: run the migrate command (e.g. `npm run migrate`) against this database with this build. If it still refuses, the migration ledger tessera_identity.schema_migrations holds a different checksum (a released migration was edited: restore it) or a migration this build does not know (a newer build migrated the database: deploy that build).",
});

/**
 * A failed startup self-test. The message is generic (no detail); the failed check id, its
 * operator hint and the original cause are kept on the instance for operator logs only.
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

  /** What the operator does about the failed check ({@link IDENTITY_STARTUP_CHECK_HINTS}). */
  get hint(): string {
    return IDENTITY_STARTUP_CHECK_HINTS[this.check];
  }
}
