import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdentityConfigEnvError } from '../errors/identity-boot.errors.js';
import { parseSecretReference } from '../runtime/secret.resolver.js';
import { IDENTITY_ENV_VARIABLES, identityConfigFromEnv } from './identity-config.env.js';

const SECRET_NAMES = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
];

/** A complete production environment: references in `*_REF`, values in the variables they name. */
function productionEnv(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    TESSERA_ENVIRONMENT: 'production',
    TESSERA_PUBLIC_BASE_URL: 'https://id.example.com',
    TESSERA_RP_ID: 'example.com',
    DATABASE_URL: 'postgres://tessera@db.internal:5432/tessera_production',
  };
  for (const name of SECRET_NAMES) {
    env[`TESSERA_${name}_REF`] = `env:TESSERA_PRODUCTION_${name}`;
    env[`TESSERA_PRODUCTION_${name}`] = `value-of-${name.toLowerCase()}-0123456789abcdef`;
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

function refusal(env: NodeJS.ProcessEnv): IdentityConfigEnvError {
  try {
    identityConfigFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(IdentityConfigEnvError);
    return error as IdentityConfigEnvError;
  }
  throw new Error('the configuration was accepted');
}

let dir: string;
let pepperFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-env-config-'));
  pepperFile = join(dir, 'tessera_production_audit_key');
  writeFileSync(pepperFile, 'file-held-audit-key-0123456789abcdef\n', { mode: 0o600 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('identityConfigFromEnv', () => {
  it('builds a production configuration whose every secret is a reference, never a value', () => {
    const env = productionEnv();
    const config = identityConfigFromEnv(env);
    expect(config).toEqual({
      environment: 'production',
      publicBaseUrl: 'https://id.example.com',
      rp: { id: 'example.com', name: 'Tessera' },
      bootstrap: { lifecycle: 'retired' },
      secrets: {
        sessionPepper: { current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER' },
        recoveryPepper: { current: 'env:TESSERA_PRODUCTION_RECOVERY_PEPPER' },
        devicePepper: { current: 'env:TESSERA_PRODUCTION_DEVICE_PEPPER' },
        servicePepper: { current: 'env:TESSERA_PRODUCTION_SERVICE_PEPPER' },
        auditKey: 'env:TESSERA_PRODUCTION_AUDIT_KEY',
        encryptionKey: 'env:TESSERA_PRODUCTION_ENCRYPTION_KEY',
        signingKey: 'env:TESSERA_PRODUCTION_SIGNING_KEY',
      },
      forwarding: { mode: 'direct_only' },
      store: { kind: 'postgresql' },
    });
    const serialized = JSON.stringify(config);
    for (const name of SECRET_NAMES) expect(serialized).not.toContain(env[`TESSERA_PRODUCTION_${name}`]);
  });

  it('reads every optional variable into its option', () => {
    const config = identityConfigFromEnv(
      productionEnv({
        TESSERA_ALLOWED_ORIGINS: 'https://id.example.com, https://app.example.com',
        TESSERA_RP_NAME: 'Example Corp',
        TESSERA_REGISTRATION_POLICY: 'admin_only',
        TESSERA_TRUSTED_PROXY_CIDRS: '10.0.0.0/8, 192.168.1.0/24',
        TESSERA_STORAGE_NAMESPACE: 'acme_production',
        TESSERA_AUDIT_RETENTION_DAYS: '365',
        TESSERA_MAINTENANCE_INTERVAL_SECONDS: '0',
        TESSERA_BOOTSTRAP_SECRET_REF: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET',
        TESSERA_PRODUCTION_BOOTSTRAP_SECRET: 'a-bootstrap-secret-of-enough-length',
      }),
    );
    expect(config.allowedOrigins).toEqual(['https://id.example.com', 'https://app.example.com']);
    expect(config.rp).toEqual({ id: 'example.com', name: 'Example Corp' });
    expect(config.registrationPolicy).toBe('admin_only');
    expect(config.forwarding).toEqual({ mode: 'trusted_cidrs', trustedCidrs: ['10.0.0.0/8', '192.168.1.0/24'] });
    expect(config.storageNamespace).toBe('acme_production');
    expect(config.audit).toEqual({ retentionDays: 365 });
    expect(config.maintenance).toEqual({ intervalSeconds: 0 });
    expect(config.bootstrap).toEqual({ lifecycle: 'pending', secretRef: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET' });
  });

  it('keeps a key ring: the current version and the previous ones, each read from its own variable', () => {
    const config = identityConfigFromEnv(
      productionEnv({
        TESSERA_SESSION_PEPPER_REF: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v3',
        TESSERA_SESSION_PEPPER_PREVIOUS_REFS:
          'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2,env:TESSERA_PRODUCTION_SESSION_PEPPER',
        TESSERA_PRODUCTION_SESSION_PEPPER_V3: 'third-session-pepper-0123456789',
        TESSERA_PRODUCTION_SESSION_PEPPER_V2: 'second-session-pepper-0123456789',
      }),
    );
    expect(config.secrets.sessionPepper).toEqual({
      current: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v3',
      previous: ['env:TESSERA_PRODUCTION_SESSION_PEPPER@v2', 'env:TESSERA_PRODUCTION_SESSION_PEPPER'],
    });
  });

  it('accepts file: references to existing files', () => {
    const config = identityConfigFromEnv(productionEnv({ TESSERA_AUDIT_KEY_REF: `file:${pepperFile}` }));
    expect(config.secrets.auditKey).toBe(`file:${pepperFile}`);
  });

  it('falls back to NODE_ENV when TESSERA_ENVIRONMENT is unset, and prefers TESSERA_ENVIRONMENT', () => {
    expect(
      identityConfigFromEnv(productionEnv({ TESSERA_ENVIRONMENT: undefined, NODE_ENV: 'production' })).environment,
    ).toBe('production');
    const staging = productionEnv({ TESSERA_ENVIRONMENT: 'staging', NODE_ENV: 'production' });
    for (const name of SECRET_NAMES) {
      staging[`TESSERA_${name}_REF`] = `env:TESSERA_STAGING_${name}`;
      staging[`TESSERA_STAGING_${name}`] = `staging-${name.toLowerCase()}-0123456789abcdef`;
    }
    expect(identityConfigFromEnv(staging).environment).toBe('staging');
  });

  it.each(IDENTITY_ENV_VARIABLES.filter((variable) => variable.required).map((variable) => variable.name))(
    'refuses to build without the required variable %s, naming it',
    (name) => {
      const error = refusal(productionEnv({ [name]: undefined, NODE_ENV: undefined }));
      expect(error.variable).toBe(name);
      expect(error.message).toContain(`${name}: is not set`);
    },
  );

  it('treats a blank variable as missing', () => {
    expect(refusal(productionEnv({ TESSERA_RP_ID: '   ' })).variable).toBe('TESSERA_RP_ID');
  });

  it('names the secret variable an env: reference points at when it is unset, never a value', () => {
    const error = refusal(
      productionEnv({
        TESSERA_SESSION_PEPPER_REF: 'env:TESSERA_PRODUCTION_SESSION_PEPPER@v2',
        TESSERA_SESSION_PEPPER_PREVIOUS_REFS: 'env:TESSERA_PRODUCTION_SESSION_PEPPER',
      }),
    );
    expect(error.variable).toBe('TESSERA_PRODUCTION_SESSION_PEPPER_V2');
    expect(error.message).toContain(
      'referenced by TESSERA_SESSION_PEPPER_REF=env:TESSERA_PRODUCTION_SESSION_PEPPER@v2',
    );
  });

  it('refuses a secret pasted where its reference belongs without echoing it', () => {
    const pasted = 'c2VjcmV0LXBlcHBlci12YWx1ZS10aGF0LXdhcy1wYXN0ZWQ=';
    const error = refusal(productionEnv({ TESSERA_SIGNING_KEY_REF: pasted }));
    expect(error.variable).toBe('TESSERA_SIGNING_KEY_REF');
    expect(error.rule).toBe('secret_reference_invalid');
    expect(error.message).not.toContain(pasted);
  });

  it.each([
    ['vault:tessera/production/signing_key', 'an unsupported scheme'],
    ['file:relative/tessera_production_signing_key', 'a relative file path'],
    ['env:tessera_production_signing_key', 'a lower-case variable name'],
  ])('refuses %s (%s)', (reference) => {
    expect(refusal(productionEnv({ TESSERA_SIGNING_KEY_REF: reference })).variable).toBe('TESSERA_SIGNING_KEY_REF');
  });

  it('refuses a file: reference to a missing file, naming the variable', () => {
    const error = refusal(productionEnv({ TESSERA_ENCRYPTION_KEY_REF: `file:${dir}/tessera_production_missing` }));
    expect(error.variable).toBe('TESSERA_ENCRYPTION_KEY_REF');
    expect(error.message).toContain('not an existing file');
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['an unknown environment', { TESSERA_ENVIRONMENT: 'prod' }, 'TESSERA_ENVIRONMENT'],
    ['an unknown NODE_ENV', { TESSERA_ENVIRONMENT: undefined, NODE_ENV: 'live' }, 'NODE_ENV'],
    ['a plain-http public base URL', { TESSERA_PUBLIC_BASE_URL: 'http://id.example.com' }, 'TESSERA_PUBLIC_BASE_URL'],
    [
      'a public base URL with a path',
      { TESSERA_PUBLIC_BASE_URL: 'https://id.example.com/app' },
      'TESSERA_PUBLIC_BASE_URL',
    ],
    ['a public base URL outside the RP ID', { TESSERA_RP_ID: 'example.org' }, 'TESSERA_PUBLIC_BASE_URL'],
    [
      'allowed origins without the public base URL',
      { TESSERA_ALLOWED_ORIGINS: 'https://app.example.com' },
      'TESSERA_PUBLIC_BASE_URL',
    ],
    [
      'a non-exact allowed origin',
      { TESSERA_ALLOWED_ORIGINS: 'https://id.example.com,https://app.example.com/' },
      'TESSERA_ALLOWED_ORIGINS',
    ],
    ['a loopback RP ID', { TESSERA_RP_ID: 'localhost', TESSERA_PUBLIC_BASE_URL: 'https://localhost' }, 'TESSERA_RP_ID'],
    ['a malformed RP ID', { TESSERA_RP_ID: 'https://example.com' }, 'TESSERA_RP_ID'],
    ['an overlong RP name', { TESSERA_RP_NAME: 'x'.repeat(201) }, 'TESSERA_RP_NAME'],
    ['open registration in production', { TESSERA_REGISTRATION_POLICY: 'open' }, 'TESSERA_REGISTRATION_POLICY'],
    ['an unknown registration policy', { TESSERA_REGISTRATION_POLICY: 'anyone' }, 'TESSERA_REGISTRATION_POLICY'],
    ['a malformed trusted CIDR', { TESSERA_TRUSTED_PROXY_CIDRS: '10.0.0.0/33' }, 'TESSERA_TRUSTED_PROXY_CIDRS'],
    [
      'a namespace of another environment',
      { TESSERA_STORAGE_NAMESPACE: 'tessera_staging' },
      'TESSERA_STORAGE_NAMESPACE',
    ],
    ['a malformed namespace', { TESSERA_STORAGE_NAMESPACE: 'Tessera Production' }, 'TESSERA_STORAGE_NAMESPACE'],
    ['a non-numeric retention', { TESSERA_AUDIT_RETENTION_DAYS: '90d' }, 'TESSERA_AUDIT_RETENTION_DAYS'],
    ['an out-of-bounds retention', { TESSERA_AUDIT_RETENTION_DAYS: '0' }, 'TESSERA_AUDIT_RETENTION_DAYS'],
    [
      'a negative maintenance interval',
      { TESSERA_MAINTENANCE_INTERVAL_SECONDS: '-1' },
      'TESSERA_MAINTENANCE_INTERVAL_SECONDS',
    ],
    [
      'an out-of-bounds maintenance interval',
      { TESSERA_MAINTENANCE_INTERVAL_SECONDS: '5' },
      'TESSERA_MAINTENANCE_INTERVAL_SECONDS',
    ],
    ['no PostgreSQL server in production', { DATABASE_URL: undefined }, 'DATABASE_URL'],
    [
      'a secret named for another environment',
      {
        TESSERA_AUDIT_KEY_REF: 'env:TESSERA_STAGING_AUDIT_KEY',
        TESSERA_STAGING_AUDIT_KEY: 'staging-audit-key-0123456789',
      },
      'TESSERA_AUDIT_KEY_REF',
    ],
    [
      'two secrets sharing one reference',
      { TESSERA_SIGNING_KEY_REF: 'env:TESSERA_PRODUCTION_AUDIT_KEY' },
      'TESSERA_SIGNING_KEY_REF',
    ],
    [
      'a previous version not below the current one',
      {
        TESSERA_DEVICE_PEPPER_PREVIOUS_REFS: 'env:TESSERA_PRODUCTION_DEVICE_PEPPER@v2',
        TESSERA_PRODUCTION_DEVICE_PEPPER_V2: 'second-device-pepper-0123456789',
      },
      'TESSERA_DEVICE_PEPPER_PREVIOUS_REFS',
    ],
    [
      'a previous reference naming an unset variable',
      { TESSERA_RECOVERY_PEPPER_PREVIOUS_REFS: 'env:TESSERA_PRODUCTION_OLD_RECOVERY_PEPPER' },
      'TESSERA_PRODUCTION_OLD_RECOVERY_PEPPER',
    ],
    [
      'a bootstrap secret reference naming an unset variable',
      { TESSERA_BOOTSTRAP_SECRET_REF: 'env:TESSERA_PRODUCTION_BOOTSTRAP_SECRET' },
      'TESSERA_PRODUCTION_BOOTSTRAP_SECRET',
    ],
    [
      'a malformed bootstrap secret reference',
      { TESSERA_BOOTSTRAP_SECRET_REF: 'bootstrap-me' },
      'TESSERA_BOOTSTRAP_SECRET_REF',
    ],
    [
      'a service pepper previous list of the wrong environment',
      {
        TESSERA_SERVICE_PEPPER_REF: 'env:TESSERA_PRODUCTION_SERVICE_PEPPER@v2',
        TESSERA_PRODUCTION_SERVICE_PEPPER_V2: 'second-service-pepper-0123456789',
        TESSERA_SERVICE_PEPPER_PREVIOUS_REFS: 'env:TESSERA_TEST_SERVICE_PEPPER',
        TESSERA_TEST_SERVICE_PEPPER: 'test-service-pepper-0123456789',
      },
      'TESSERA_SERVICE_PEPPER_PREVIOUS_REFS',
    ],
  ])('refuses %s, naming the variable', (_case, overrides, variable) => {
    expect(refusal(productionEnv(overrides)).variable).toBe(variable);
  });

  it('reads only documented variables, and every documented variable changes the outcome', () => {
    const read = new Set<string>();
    const env = new Proxy(productionEnv(), {
      get(target, key) {
        if (typeof key === 'string') read.add(key);
        return target[key as string];
      },
    });
    identityConfigFromEnv(env);
    const referenced = new Set(
      SECRET_NAMES.map((name) => parseSecretReference(`env:TESSERA_PRODUCTION_${name}`)!.name),
    );
    const documented = new Set(IDENTITY_ENV_VARIABLES.map((variable) => variable.name));
    expect([...read].filter((name) => !documented.has(name) && !referenced.has(name))).toEqual([]);
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });
});
