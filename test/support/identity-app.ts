import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, DatabaseModule, type TestDatabase } from '@tessera/database';
import { MikroORM } from '@mikro-orm/core';
import {
  createInMemorySecretResolver,
  createNodeIdentityRuntime,
  FrozenClock,
  IDENTITY_KERNEL,
  IdentityModule,
  issueSession,
  type IdentityConfig,
  type IdentityKernel,
} from '@tessera/identity';
import { IdentityTestRows } from '@tessera/identity-testing';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
  IdentityMikroOrmModule,
} from '@tessera/identity-mikro-orm';
import { RouterModule } from '@tessera/web';

/** The origin the identity test apps are configured for (used as `Origin` on unsafe requests). */
export const TEST_ORIGIN = 'http://localhost:3000';

/** A booted identity app on its own real database, with its clock and generated secrets. */
export interface IdentityTestApp {
  readonly app: INestApplication;
  readonly clock: FrozenClock;
  readonly database: TestDatabase;
  /** Every secret value this app was configured with (tests scan responses and logs for them). */
  readonly secrets: readonly string[];
  readonly bootstrapSecret: string;
  close(): Promise<void>;
}

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
 * Boots `RouterModule` + `IdentityModule` (test environment, bootstrap pending) on a fresh
 * database (PGlite, or the `DATABASE_URL` server), with a frozen clock and random secrets.
 */
export async function bootIdentityApp(
  overrides: Partial<IdentityConfig> = {},
  start = '2026-07-14T08:15:30Z',
): Promise<IdentityTestApp> {
  const clock = new FrozenClock(start);
  const values = Object.fromEntries(
    NAMES.map((name) => [`env:TESSERA_TEST_${name}`, randomBytes(24).toString('base64url')]),
  );
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
    ...overrides,
  };
  const database = await createTestDatabase();
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
      }),
    ],
  })
  class IdentityTestModule {}
  const moduleRef = await Test.createTestingModule({ imports: [IdentityTestModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return {
    app,
    clock,
    database,
    secrets: Object.values(values),
    bootstrapSecret: values[ref('BOOTSTRAP_SECRET')]!,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** The `__Host-tessera_session` value from a response's `Set-Cookie`, if set. */
export function sessionCookieOf(headers: Record<string, unknown>): string | undefined {
  const cookies = (headers['set-cookie'] as string[] | undefined) ?? [];
  const cookie = cookies.find(
    (c) => c.startsWith('__Host-tessera_session=') && !c.startsWith('__Host-tessera_session=;'),
  );
  return cookie?.slice('__Host-tessera_session='.length).split(';')[0];
}

/**
 * Seeds an active user with a passkey session (the passkey ceremonies arrive with their own
 * feature): the session is minted with the app's own pepper and inserted as the store keeps it.
 * Returns the cookie header value and the CSRF token.
 */
export async function seedPasskeySession(
  identity: IdentityTestApp,
  userId?: string,
  over: { authenticatedAt?: Date } = {},
): Promise<{ userId: string; sessionId: string; cookie: string; csrfToken: string }> {
  const kernel = identity.app.get<IdentityKernel>(IDENTITY_KERNEL);
  const rows = new IdentityTestRows(identity.app.get(MikroORM).em);
  const owner = userId ?? (await rows.user({ at: identity.clock.now() }));
  const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId: owner,
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: over.authenticatedAt ?? identity.clock.now(),
    lifetimes: {
      idleSeconds: kernel.config.lifetimes.sessionIdleSeconds,
      absoluteSeconds: kernel.config.lifetimes.sessionAbsoluteSeconds,
    },
  });
  const epoch = (await rows.sql('select session_epoch from tessera_identity.users where id = ?', [owner]))[0]![
    'session_epoch'
  ] as number;
  await rows.session(issued.session, { userSessionEpoch: Number(epoch) });
  return {
    userId: owner,
    sessionId: issued.session.id,
    cookie: `__Host-tessera_session=${issued.cookieToken}`,
    csrfToken: issued.csrfToken,
  };
}
