import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { IdentityConfigEnvError, IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { KeyRingReferences } from '../runtime/key-ring.resolver.js';
import { envVariableName, parseSecretReference } from '../runtime/secret.resolver.js';
import type { IdentityConfig, IdentityEnvironment, RegistrationPolicy } from './identity.config.js';
import { IDENTITY_ENVIRONMENTS } from './identity-config.defaults.js';
import { OPTION_VARIABLES, REFERENCE_FORM } from './identity-config.env-variables.js';
import { createIdentityConfig } from './identity-config.validator.js';

export { IDENTITY_ENV_VARIABLES, type IdentityEnvVariable } from './identity-config.env-variables.js';

/**
 * Builds the identity configuration from environment variables ({@link IDENTITY_ENV_VARIABLES},
 * documented in `docs/deployment.md`) and validates it. Every secret is configured as a reference
 * (`env:NAME[@vN]` or `file:/absolute/path[@vN]`), never a value: an `env:` reference must name a
 * variable set in `env`, a `file:` reference an existing file. Fails closed with an
 * {@link IdentityConfigEnvError} naming the variable to fix (never a value).
 *
 * @example
 * // TESSERA_ENVIRONMENT=production TESSERA_PUBLIC_BASE_URL=https://id.example.com TESSERA_RP_ID=example.com
 * // TESSERA_SESSION_PEPPER_REF=env:TESSERA_PRODUCTION_SESSION_PEPPER ... (see docs/deployment.md)
 * IdentityModule.forRoot({ config: identityConfigFromEnv(process.env), store: IdentityMikroOrmModule.forRoot() });
 */
export function identityConfigFromEnv(env: NodeJS.ProcessEnv): IdentityConfig {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const environmentVariable = read('TESSERA_ENVIRONMENT') !== undefined ? 'TESSERA_ENVIRONMENT' : 'NODE_ENV';
  const environment = read(environmentVariable);
  if (environment === undefined) {
    missing('TESSERA_ENVIRONMENT', 'set it (or NODE_ENV) to development, test, staging or production');
  }
  if (!IDENTITY_ENVIRONMENTS.includes(environment as IdentityEnvironment)) {
    failVariable('environment_variable', environmentVariable, `must be one of ${IDENTITY_ENVIRONMENTS.join(', ')}`);
  }
  const required = (name: string, hint: string): string => read(name) ?? missing(name, hint);
  const ref = (name: string): string => checkReference(name, required(name, `set it to ${REFERENCE_FORM}`), env);
  const refs = (name: string): string[] => list(read(name)).map((value) => checkReference(name, value, env));
  const ring = (suffix: string): KeyRingReferences => {
    const current = ref(`TESSERA_${suffix}_REF`);
    const previous = refs(`TESSERA_${suffix}_PREVIOUS_REFS`);
    return previous.length === 0 ? { current } : { current, previous };
  };
  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl === undefined && (environment === 'staging' || environment === 'production')) {
    missing(
      'DATABASE_URL',
      `${environment} needs a PostgreSQL server URL (embedded PGlite is for development and test)`,
    );
  }
  const publicBaseUrl = required(
    'TESSERA_PUBLIC_BASE_URL',
    'set it to the public https:// origin (e.g. https://id.example.com)',
  );
  const origins = list(read('TESSERA_ALLOWED_ORIGINS'));
  const cidrs = list(read('TESSERA_TRUSTED_PROXY_CIDRS'));
  const bootstrapRef = read('TESSERA_BOOTSTRAP_SECRET_REF');
  const retention = integer('TESSERA_AUDIT_RETENTION_DAYS', read('TESSERA_AUDIT_RETENTION_DAYS'));
  const interval = integer('TESSERA_MAINTENANCE_INTERVAL_SECONDS', read('TESSERA_MAINTENANCE_INTERVAL_SECONDS'));
  const namespace = read('TESSERA_STORAGE_NAMESPACE');
  const policy = read('TESSERA_REGISTRATION_POLICY');
  const config: IdentityConfig = {
    environment: environment as IdentityEnvironment,
    publicBaseUrl,
    ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
    rp: {
      id: required('TESSERA_RP_ID', 'set it to the public host or a registrable parent (e.g. example.com)'),
      name: read('TESSERA_RP_NAME') ?? 'Tessera',
    },
    ...(policy === undefined ? {} : { registrationPolicy: policy as RegistrationPolicy }),
    bootstrap:
      bootstrapRef === undefined
        ? { lifecycle: 'retired' }
        : { lifecycle: 'pending', secretRef: checkReference('TESSERA_BOOTSTRAP_SECRET_REF', bootstrapRef, env) },
    secrets: {
      sessionPepper: ring('SESSION_PEPPER'),
      recoveryPepper: ring('RECOVERY_PEPPER'),
      devicePepper: ring('DEVICE_PEPPER'),
      servicePepper: ring('SERVICE_PEPPER'),
      auditKey: ref('TESSERA_AUDIT_KEY_REF'),
      encryptionKey: ref('TESSERA_ENCRYPTION_KEY_REF'),
      signingKey: ref('TESSERA_SIGNING_KEY_REF'),
    },
    forwarding: cidrs.length > 0 ? { mode: 'trusted_cidrs', trustedCidrs: cidrs } : { mode: 'direct_only' },
    ...(namespace === undefined ? {} : { storageNamespace: namespace }),
    ...(retention === undefined ? {} : { audit: { retentionDays: retention } }),
    ...(interval === undefined ? {} : { maintenance: { intervalSeconds: interval } }),
    store: { kind: databaseUrl === undefined ? 'pglite' : 'postgresql' },
  };
  try {
    createIdentityConfig(config);
  } catch (error) {
    throw error instanceof IdentityConfigError ? withVariable(error, env, environmentVariable) : error;
  }
  return config;
}

/** Comma-separated values, trimmed, empty entries dropped. */
function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(value)) failVariable('environment_variable', name, 'must be a whole number');
  return Number(value);
}

/**
 * A reference as the variable gives it, refused unless it is `env:` (naming a variable set in
 * `env`) or `file:` (naming an existing regular file). The value is never echoed: it may be a
 * secret pasted where its reference belongs.
 */
function checkReference(variable: string, value: string, env: NodeJS.ProcessEnv): string {
  const parsed = parseSecretReference(value);
  if (parsed?.scheme === 'env' && /^[A-Z_][A-Z0-9_]*$/.test(parsed.name)) {
    const target = envVariableName(parsed);
    if ((env[target] ?? '') === '') {
      throw new IdentityConfigEnvError(
        'environment_variable',
        target,
        `is not set (referenced by ${variable}=${value}); set it to the secret (e.g. openssl rand -base64 32)`,
      );
    }
    return value;
  }
  if (parsed?.scheme === 'file' && isAbsolute(parsed.name)) {
    const file = statSync(parsed.name, { throwIfNoEntry: false });
    if (file === undefined || !file.isFile()) {
      failVariable('environment_variable', variable, `names ${value}, which is not an existing file`);
    }
    return value;
  }
  return failVariable(
    'secret_reference_invalid',
    variable,
    `must be ${REFERENCE_FORM} (the value is not shown; if it is the secret itself, put the secret in its own variable or file and reference that)`,
  );
}

function missing(name: string, hint: string): never {
  return failVariable('environment_variable', name, `is not set; ${hint}`);
}

function failVariable(rule: IdentityConfigError['rule'], variable: string, message: string): never {
  throw new IdentityConfigEnvError(rule, variable, message);
}

/** A validator failure, re-thrown naming the variable behind the option its message starts with. */
function withVariable(error: IdentityConfigError, env: NodeJS.ProcessEnv, environmentVariable: string): Error {
  if (error instanceof IdentityConfigEnvError) return error;
  const message = error.message.replace(/^Invalid identity configuration: /, '');
  const match =
    OPTION_VARIABLES.find(([prefix]) => message.startsWith(prefix)) ??
    OPTION_VARIABLES.find(([prefix]) => message.includes(prefix));
  let variable = match?.[1] ?? environmentVariable;
  // Unset options take their value from another variable: name the one the operator wrote.
  if (variable === 'TESSERA_ALLOWED_ORIGINS' && (env[variable] ?? '').trim() === '')
    variable = 'TESSERA_PUBLIC_BASE_URL';
  if (variable === 'TESSERA_STORAGE_NAMESPACE' && (env[variable] ?? '').trim() === '') variable = environmentVariable;
  return new IdentityConfigEnvError(error.rule, variable, message);
}
