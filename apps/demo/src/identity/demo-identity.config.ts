import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DevelopmentOutbox } from './development-outbox.js';
import {
  createEnvAndFileSecretResolver,
  createInMemorySecretResolver,
  createNodeIdentityRuntime,
  identityConfigFromEnv,
  type IdentityConfig,
  type IdentityModuleOptions,
  type IdentityRuntime,
} from '@tessera/identity';

/** Environment variable holding the bootstrap secret (16..512 chars); unset → bootstrap retired. */
export const BOOTSTRAP_SECRET_ENV = 'TESSERA_BOOTSTRAP_SECRET';

const NAMES = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
] as const;
const ref = (name: string) => `env:TESSERA_DEVELOPMENT_${name}`;

/**
 * The demo's capability allowlists: service credentials may carry its application grant
 * `package.publish` (see packages/packages.module.ts); the `tessera` CLI (device flow) may ask for
 * the user's profile, organizations, and that grant.
 */
export const DEMO_CAPABILITIES = Object.freeze({
  device: ['identity.profile', 'identity.organizations', 'organization.read', 'package.publish'],
  service: ['package.publish'],
});

/**
 * The demo's enterprise federation (identity-http §6): organization owners and admins register
 * their OIDC and SAML providers on the organization page ("Single sign-on"); a completed sign-in
 * lands on the account page, whose script adopts the session's CSRF token from the
 * `__Host-tessera_csrf` cookie and offers the first passkey (FED1).
 */
export const DEMO_FEDERATION: NonNullable<IdentityModuleOptions['federation']> = Object.freeze({
  successPath: '/identity',
});

/**
 * Development secrets for the demo: read from `TESSERA_DEVELOPMENT_*` variables when set,
 * otherwise generated once and kept in `secretsFile` (mode 0600) so sessions survive restarts.
 * Development only: staging and production resolve secrets from their own references.
 */
export function developmentSecrets(secretsFile: string | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  let stored: Record<string, string> = {};
  if (secretsFile !== undefined && existsSync(secretsFile))
    stored = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
  const values: Record<string, string> = {};
  for (const name of NAMES)
    values[ref(name)] =
      env[`TESSERA_DEVELOPMENT_${name}`] ?? stored[ref(name)] ?? randomBytes(32).toString('base64url');
  if (secretsFile !== undefined && Object.keys(stored).length === 0) {
    mkdirSync(dirname(secretsFile), { recursive: true });
    writeFileSync(secretsFile, JSON.stringify(values), { mode: 0o600 });
  }
  const bootstrap = env[BOOTSTRAP_SECRET_ENV];
  if (bootstrap !== undefined && bootstrap !== '') values[ref('BOOTSTRAP_SECRET')] = bootstrap;
  return values;
}

/**
 * `true` when `NODE_ENV` is `production` or `staging`: the demo then reads its whole identity
 * configuration from environment variables (`identityConfigFromEnv`, docs/deployment.md), needs a
 * migrated and provisioned PostgreSQL server, and never generates or stores secrets itself.
 *
 * @example
 * const migrate = deployedFromEnv(process.env) ? 'manual' : 'auto';
 */
export function deployedFromEnv(env: NodeJS.ProcessEnv): boolean {
  return env.NODE_ENV === 'production' || env.NODE_ENV === 'staging';
}

/** What {@link demoIdentity} hands to `IdentityModule.forRoot`. */
export interface DemoIdentity {
  readonly config: IdentityConfig;
  readonly runtime: IdentityRuntime;
  readonly federation: NonNullable<IdentityModuleOptions['federation']>;
}

/**
 * The demo's identity configuration, runtime and federation options: in production/staging (see
 * {@link deployedFromEnv}) built from environment variables with `env:`/`file:` secret references;
 * otherwise development at `http://localhost:<port>` with generated secrets. Either way federated
 * sign-ins land on the account page ({@link DEMO_FEDERATION}).
 *
 * @example
 * IdentityModule.forRoot({ ...demoIdentity(3000, undefined, process.env), store });
 */
export function demoIdentity(port: number, secretsFile: string | undefined, env: NodeJS.ProcessEnv): DemoIdentity {
  if (deployedFromEnv(env)) {
    return {
      config: { ...identityConfigFromEnv(env), capabilities: DEMO_CAPABILITIES },
      runtime: createNodeIdentityRuntime({ secrets: createEnvAndFileSecretResolver(env) }),
      federation: DEMO_FEDERATION,
    };
  }
  const values = developmentSecrets(secretsFile, env);
  const pending = values[ref('BOOTSTRAP_SECRET')] !== undefined;
  const config: IdentityConfig = {
    environment: 'development',
    publicBaseUrl: `http://localhost:${port}`,
    rp: { id: 'localhost', name: 'Tessera demo' },
    secrets: {
      sessionPepper: { current: ref('SESSION_PEPPER') },
      recoveryPepper: { current: ref('RECOVERY_PEPPER') },
      devicePepper: { current: ref('DEVICE_PEPPER') },
      servicePepper: { current: ref('SERVICE_PEPPER') },
      auditKey: ref('AUDIT_KEY'),
      encryptionKey: ref('ENCRYPTION_KEY'),
      signingKey: ref('SIGNING_KEY'),
    },
    bootstrap: pending ? { lifecycle: 'pending', secretRef: ref('BOOTSTRAP_SECRET') } : { lifecycle: 'retired' },
    capabilities: DEMO_CAPABILITIES,
    // A shorter recent-passkey window (1..900 s) lets the browser journeys reach step-up without waiting 5 minutes.
    ...(env.TESSERA_STEP_UP_WINDOW_SECONDS
      ? { lifetimes: { stepUpWindowSeconds: Number(env.TESSERA_STEP_UP_WINDOW_SECONDS) } }
      : {}),
  };
  return {
    config,
    runtime: createNodeIdentityRuntime({ secrets: createInMemorySecretResolver(values) }),
    federation: DEMO_FEDERATION,
  };
}

/**
 * The development outbox ({@link DevelopmentOutbox}): kept in `development-outbox.ndjson` next to
 * the development secrets when they are kept in a file (so `npm run invite` and restarts share
 * it), in memory otherwise.
 *
 * @example
 * const outbox = developmentOutbox('.data/identity-development-secrets.json'); // .data/development-outbox.ndjson
 */
export function developmentOutbox(secretsFile: string | undefined): DevelopmentOutbox {
  return new DevelopmentOutbox(
    secretsFile === undefined ? undefined : join(dirname(secretsFile), 'development-outbox.ndjson'),
  );
}
