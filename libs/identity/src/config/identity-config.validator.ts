import type { ResolvedIdentityConfig } from './identity.config.js';
import { IDENTITY_CONFIG_BOUNDS } from './identity-bounds.config.js';
import { validateCapabilityAllowlists } from './identity-config-capabilities.validator.js';
import {
  validateAudit,
  validateMaintenance,
  validateLifetimes,
  validateLimits,
  validateRateLimits,
} from './identity-config-bounds.validator.js';
import { resolveIdentityConfig } from './identity-config.defaults.js';
import { validateForwarding } from './identity-config-forwarding.validator.js';
import { validateOrigins, validateSessionCookie } from './identity-config-origins.validator.js';
import { fail, HTTP_TOKEN, isHardened, oneOf, string } from './identity-config.rules.js';
import { validateSecretReferences, validateStorageNamespace } from './identity-config-secrets.validator.js';
import type { IdentityConfig } from './identity.config.js';

/**
 * Validates a resolved configuration against every rule of `identity-model.md` §7.3 and
 * `identity-http.md` §9.1 / §10, failing closed on the first violation with an actionable
 * `IdentityConfigError`. Returns the same (frozen) configuration.
 *
 * @example
 * const config = validateIdentityConfig(resolveIdentityConfig(options.config));
 */
export function validateIdentityConfig(config: ResolvedIdentityConfig): ResolvedIdentityConfig {
  validateOrigins(config);
  validateRegistration(config);
  validateSecretReferences(config);
  validateStorageNamespace(config);
  validateSessionCookie(config);
  validateLifetimes(config);
  validateLimits(config);
  validateRateLimits(config);
  validateForwarding(config);
  validateCapabilityAllowlists(config);
  validateAudit(config);
  validateMaintenance(config);
  validateStoreAndHeaders(config);
  if (typeof config.openApi !== 'boolean') fail('invalid_option', 'openApi must be a boolean');
  return config;
}

/**
 * `resolveIdentityConfig` then `validateIdentityConfig`: the configuration services use.
 *
 * @example
 * const config = createIdentityConfig({ environment: 'development', publicBaseUrl: 'http://localhost:3000', ... });
 */
export function createIdentityConfig(input: IdentityConfig): ResolvedIdentityConfig {
  return validateIdentityConfig(resolveIdentityConfig(input));
}

function validateRegistration(config: ResolvedIdentityConfig): void {
  const policy = oneOf('registration_policy', 'registrationPolicy', config.registrationPolicy, [
    'invitation_only',
    'admin_only',
    'disabled',
    'open',
  ] as const);
  if (policy === 'open' && config.environment !== 'development') {
    fail(
      'registration_policy',
      `registrationPolicy "open" is allowed in development only; use "invitation_only", "admin_only" or "disabled" in ${config.environment}`,
    );
  }
  const lifecycle = oneOf('invalid_option', 'bootstrap.lifecycle', config.bootstrap.lifecycle, [
    'pending',
    'retired',
  ] as const);
  const secretRef = config.bootstrap.secretRef;
  if (lifecycle === 'pending' && secretRef === undefined) {
    fail(
      'bootstrap_secret_required',
      `bootstrap.lifecycle "pending" needs bootstrap.secretRef (e.g. "env:TESSERA_${config.environment.toUpperCase()}_BOOTSTRAP_SECRET"); set lifecycle "retired" once the first owner exists`,
    );
  }
  if (lifecycle === 'retired' && secretRef !== undefined) {
    fail(
      'bootstrap_secret_forbidden',
      'bootstrap.lifecycle "retired" forbids bootstrap.secretRef; remove the reference and the secret',
    );
  }
  if (secretRef !== undefined) string('secret_reference_invalid', 'bootstrap.secretRef', secretRef);
}

function validateStoreAndHeaders(config: ResolvedIdentityConfig): void {
  const kind = oneOf('store_kind', 'store.kind', config.store.kind, ['postgresql', 'pglite'] as const);
  if (kind === 'pglite' && isHardened(config.environment)) {
    fail(
      'store_kind',
      `embedded PGlite is refused in ${config.environment}; configure a PostgreSQL server (DATABASE_URL) and set store: { kind: 'postgresql' }`,
    );
  }
  const header = string('request_id_header', 'requestIdHeader', config.requestIdHeader);
  const maxChars = IDENTITY_CONFIG_BOUNDS.requestIdHeader.maxChars;
  if (!HTTP_TOKEN.test(header) || header.length > maxChars) {
    fail(
      'request_id_header',
      `requestIdHeader must be an HTTP header name of at most ${maxChars} token characters (e.g. "X-Request-ID")`,
    );
  }
}
