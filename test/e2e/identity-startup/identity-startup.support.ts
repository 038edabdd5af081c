import { afterAll, beforeAll, expect } from '@jest/globals';
import { Module, type DynamicModule, type INestApplication, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { EntityManager, MikroORM } from '@mikro-orm/core';
import {
  createTestDatabase,
  DatabaseModule,
  openDatabase,
  type DatabaseOptions,
  type OpenDatabase,
  type TestDatabase,
} from '@tessera/database';
import {
  createInMemorySecretResolver,
  createNodeIdentityRuntime,
  IdentityModule,
  type IdentityConfig,
  type IdentityRuntime,
  type IdentitySecretsConfig,
  type NodeIdentityRuntimeOptions,
} from '@tessera/identity';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
  IdentityMikroOrmModule,
} from '@tessera/identity-mikro-orm';
import { RouterModule } from '@tessera/web';

/** A hardened environment (the ones that fail closed). */
export type HardenedEnvironment = 'staging' | 'production';

/** The identity authority's origin in the hardened test configurations. */
export const HARDENED_ORIGIN = 'https://id.example.com';

/** The database options the identity startup tests boot (and provision) with. */
export const IDENTITY_DATABASE: Omit<DatabaseOptions, 'url' | 'migrate'> = {
  entities: [...identityEntities],
  migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
};

const SECRET_NAMES = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
  'BOOTSTRAP_SECRET',
] as const;

/** `env:TESSERA_<ENVIRONMENT>_<NAME>`, the reference shape the configuration rules demand. */
export function secretRef(environment: string, name: (typeof SECRET_NAMES)[number]): string {
  return `env:TESSERA_${environment.toUpperCase()}_${name}`;
}

/** Fresh random values (32 bytes, base64url) for every secret reference of `environment`. */
export function secretValues(environment: string): Record<string, string> {
  return Object.fromEntries(
    SECRET_NAMES.map((name) => [secretRef(environment, name), randomBytes(32).toString('base64url')]),
  );
}

/** Every secret reference (peppers, keys) of `environment`, bootstrap aside. */
export function secretReferences(environment: string): IdentitySecretsConfig {
  const ref = (name: (typeof SECRET_NAMES)[number]) => secretRef(environment, name);
  return {
    sessionPepper: { current: ref('SESSION_PEPPER') },
    recoveryPepper: { current: ref('RECOVERY_PEPPER') },
    devicePepper: { current: ref('DEVICE_PEPPER') },
    servicePepper: { current: ref('SERVICE_PEPPER') },
    auditKey: ref('AUDIT_KEY'),
    encryptionKey: ref('ENCRYPTION_KEY'),
    signingKey: ref('SIGNING_KEY'),
  };
}

/**
 * A valid staging/production configuration: HTTPS origins under `example.com`, secret
 * references naming the environment, a PostgreSQL store, bootstrap retired, and the loopback
 * peer trusted as proxy so tests can present `X-Forwarded-Proto: https`.
 */
export function hardenedConfig(
  environment: HardenedEnvironment,
  overrides: Partial<IdentityConfig> = {},
): IdentityConfig {
  return {
    environment,
    publicBaseUrl: HARDENED_ORIGIN,
    allowedOrigins: [HARDENED_ORIGIN, 'https://app.example.com'],
    rp: { id: 'example.com', name: 'Tessera startup' },
    secrets: secretReferences(environment),
    forwarding: { mode: 'trusted_cidrs', trustedCidrs: ['127.0.0.1/32', '::1/128'] },
    store: { kind: 'postgresql' },
    ...overrides,
  };
}

/** The Node runtime with in-memory secrets (and any part replaced). */
export function runtimeWith(
  secrets: Record<string, string | Uint8Array>,
  parts: Omit<NodeIdentityRuntimeOptions, 'secrets'> = {},
): IdentityRuntime {
  return createNodeIdentityRuntime({ ...parts, secrets: createInMemorySecretResolver(secrets) });
}

/**
 * A fresh test database with the identity schema migrated, opened before the spec file's tests and
 * closed after them; returns its accessor.
 *
 * @example
 * const database = useMigratedIdentityDatabase(); ... identityForRoot(...) over { orm: database().orm }
 */
export function useMigratedIdentityDatabase(): () => OpenDatabase {
  let test: TestDatabase | undefined;
  let db: OpenDatabase | undefined;
  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ ...IDENTITY_DATABASE, url: test.url, migrate: 'auto' });
  });
  afterAll(async () => {
    await db?.close();
    await test?.close();
  });
  return () => db!;
}

/** A Nest logger that keeps every line (the operator's view of a failed start). */
export class CapturedLogger implements LoggerService {
  readonly lines: string[] = [];
  log = (message: unknown, ...rest: unknown[]) => this.keep('log', message, rest);
  error = (message: unknown, ...rest: unknown[]) => this.keep('error', message, rest);
  warn = (message: unknown, ...rest: unknown[]) => this.keep('warn', message, rest);
  debug = (message: unknown, ...rest: unknown[]) => this.keep('debug', message, rest);
  verbose = (message: unknown, ...rest: unknown[]) => this.keep('verbose', message, rest);

  private keep(level: string, message: unknown, rest: unknown[]): void {
    this.lines.push([level, message, ...rest].map((part) => render(part)).join(' '));
  }
}

/** Where the identity app's database comes from. */
export type BootDatabase =
  /** An ORM the test owns (failed boots then leak nothing): exposed as a global module. */
  | { readonly orm: MikroORM }
  /**
   * `DatabaseModule.forRoot` on `url`, migrating at start (`auto`) or not (`manual`). Only for boots
   * that compile: a failed compile cannot close the ORM it opened (use `orm` for those).
   */
  | { readonly url: string; readonly migrate: 'auto' | 'manual' };

/** How to boot: an `IdentityModule` (forRoot/forRootAsync) over a database. */
export interface BootInput {
  readonly database: BootDatabase;
  readonly identity: DynamicModule;
}

/** A boot's outcome: the app when it started, the error otherwise, and every log line. */
export interface BootOutcome {
  readonly app?: INestApplication;
  readonly error?: unknown;
  readonly logs: readonly string[];
}

@Module({})
class TestOrmModule {}

function databaseModule(database: BootDatabase): DynamicModule {
  if ('orm' in database) {
    const providers = [
      { provide: MikroORM, useValue: database.orm },
      { provide: EntityManager, useValue: database.orm.em },
    ];
    return { module: TestOrmModule, global: true, providers, exports: [MikroORM, EntityManager] };
  }
  return DatabaseModule.forRoot({ ...IDENTITY_DATABASE, url: database.url, migrate: database.migrate });
}

/**
 * `true` when this run's test databases are embedded PGlite (no `DATABASE_URL` server): the
 * hardened boots of these tests then ask for PGlite by name, since they test the other startup
 * checks (the engine check itself is tested on a PGlite database in its own case).
 */
export const EMBEDDED_TEST_DATABASES = !process.env.DATABASE_URL;

/** `IdentityModule.forRoot` with the MikroORM store (the shared PostgreSQL limiter). */
export function identityForRoot(
  config: IdentityConfig,
  runtime: IdentityRuntime,
  unsafeAllowEmbeddedDatabase = EMBEDDED_TEST_DATABASES,
): DynamicModule {
  return IdentityModule.forRoot({
    config,
    runtime,
    store: IdentityMikroOrmModule.forRoot(),
    unsafeAllowEmbeddedDatabase,
  });
}

/**
 * Boots `RouterModule` + the given identity module through Nest (compile, then `app.init()`),
 * capturing logs. A failed `init` closes the app again; a failed compile had nothing to close.
 */
export async function bootIdentity(input: BootInput): Promise<BootOutcome> {
  const logger = new CapturedLogger();
  @Module({ imports: [databaseModule(input.database), RouterModule.forRoot(), input.identity] })
  class StartupTestModule {}
  let app: INestApplication | undefined;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [StartupTestModule] })
      .setLogger(logger)
      .compile();
    app = moduleRef.createNestApplication({ logger });
    await app.init();
    return { app, logs: logger.lines };
  } catch (error) {
    await app?.close().catch(() => undefined);
    return { error, logs: logger.lines };
  }
}

/** Asserts that no error message (through the cause chain) and no log line contains a secret value. */
export function expectNoSecretIn(outcome: BootOutcome, secrets: Record<string, string | Uint8Array>): void {
  const texts = [...outcome.logs];
  for (let error = outcome.error; error instanceof Error; error = error.cause) {
    texts.push(error.message, String(error.stack));
  }
  const values = Object.values(secrets).map((value) => (typeof value === 'string' ? value : ''));
  for (const value of values.filter((v) => v.length >= 8)) {
    for (const text of texts) expect(text).not.toContain(value);
  }
}

function render(part: unknown): string {
  if (part instanceof Error) return `${part.name}: ${part.message}\n${part.stack ?? ''}`;
  return typeof part === 'string' ? part : JSON.stringify(part);
}
