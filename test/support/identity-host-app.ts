import { Module, type DynamicModule, type INestApplication, type LoggerService, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, DatabaseModule } from '@tessera/database';
import {
  createInMemorySecretResolver,
  createNodeIdentityRuntime,
  FrozenClock,
  IdentityModule,
  type IdentityConfig,
} from '@tessera/identity';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
  IdentityMikroOrmModule,
} from '@tessera/identity-mikro-orm';
import { RouterModule } from '@tessera/web';
import { TEST_ORIGIN, type IdentityTestApp, type IdentityTestModuleOptions } from './identity-app.js';

/** Options of {@link bootIdentityHostApp}. */
export interface IdentityHostAppOptions {
  /** Configuration overrides, as for `bootIdentityApp`. @default {} */
  readonly overrides?: Partial<IdentityConfig>;
  /** The frozen clock's start. @default '2026-07-14T08:15:30Z' */
  readonly start?: string;
  /** Host Nest controllers served next to the identity routes (guarded with the identity decorators). @default [] */
  readonly controllers?: Type<unknown>[];
  /** The Nest logger of the app. @default false (silent) */
  readonly logger?: LoggerService | false;
  /** Module-level integrations (platform authorizer, notification sink). @default {} */
  readonly moduleOptions?: IdentityTestModuleOptions;
  /** Further modules of the host app (e.g. `CoreModule.forRoot(...)` beside identity). @default [] */
  readonly imports?: DynamicModule[];
  /**
   * A running app whose database, secrets and clock this one shares: a second instance of the same
   * deployment (its `close()` leaves the database to the first). @default none (a fresh database)
   */
  readonly instanceOf?: IdentityTestApp;
  /** Further secrets the in-memory resolver knows, by reference (e.g. a static provider's client secret). @default {} */
  readonly extraSecrets?: Readonly<Record<string, string>>;
}

/** The secret values each app was booted with, for its sibling instances. */
const secretValues = new WeakMap<IdentityTestApp, Record<string, string>>();

const NAMES = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
  'BOOTSTRAP_SECRET',
];

/**
 * `bootIdentityApp` with host controllers and a chosen Nest logger: the same test configuration
 * (test environment, bootstrap pending, random secrets, frozen clock, fresh database), so the
 * helpers of `identity-app.ts` (`seedPasskeySession`, `sessionCookieOf`) work on the result.
 *
 * @example
 * const identity = await bootIdentityHostApp({ controllers: [HostController], logger: new CapturingLogger() });
 */
export async function bootIdentityHostApp(options: IdentityHostAppOptions = {}): Promise<IdentityTestApp> {
  const sibling = options.instanceOf;
  const clock = sibling?.clock ?? new FrozenClock(options.start ?? '2026-07-14T08:15:30Z');
  const values =
    (sibling && secretValues.get(sibling)) ??
    Object.fromEntries(NAMES.map((name) => [`env:TESSERA_TEST_${name}`, randomBytes(24).toString('base64url')]));
  Object.assign(values, options.extraSecrets ?? {});
  const ref = (name: string) => `env:TESSERA_TEST_${name}`;
  const config: IdentityConfig = {
    environment: 'test',
    publicBaseUrl: TEST_ORIGIN,
    rp: { id: 'localhost', name: 'Tessera test' },
    secrets: {
      sessionPepper: { current: ref('SESSION_PEPPER') },
      recoveryPepper: { current: ref('RECOVERY_PEPPER') },
      devicePepper: { current: ref('DEVICE_PEPPER') },
      servicePepper: { current: ref('SERVICE_PEPPER') },
      auditKey: ref('AUDIT_KEY'),
      encryptionKey: ref('ENCRYPTION_KEY'),
      signingKey: ref('SIGNING_KEY'),
    },
    bootstrap: { lifecycle: 'pending', secretRef: ref('BOOTSTRAP_SECRET') },
    ...options.overrides,
  };
  const database = sibling?.database ?? (await createTestDatabase());
  @Module({
    imports: [
      DatabaseModule.forRoot({
        url: database.url,
        entities: [...identityEntities],
        migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE },
      }),
      RouterModule.forRoot(),
      IdentityModule.forRoot({
        config,
        runtime: createNodeIdentityRuntime({ clock, secrets: createInMemorySecretResolver(values) }),
        store: IdentityMikroOrmModule.forRoot(),
        ...options.moduleOptions,
      }),
      ...(options.imports ?? []),
    ],
    controllers: options.controllers ?? [],
  })
  class IdentityHostTestModule {}
  let app: INestApplication;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [IdentityHostTestModule] }).compile();
    app = moduleRef.createNestApplication({ logger: options.logger ?? false });
    await app.init();
  } catch (error) {
    if (sibling === undefined) await database.close();
    throw error;
  }
  const booted: IdentityTestApp = {
    app,
    clock,
    database,
    secrets: Object.values(values),
    bootstrapSecret: values[ref('BOOTSTRAP_SECRET')]!,
    async close() {
      await app.close();
      if (sibling === undefined) await database.close();
    },
  };
  secretValues.set(booted, values);
  return booted;
}
