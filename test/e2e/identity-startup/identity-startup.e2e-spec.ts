import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Inject, Injectable, Module, type INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import request from 'supertest';
import { createTestDatabase, openDatabase, runMigrations, type TestDatabase } from '@tessera/database';
import {
  IDENTITY_STARTUP_ERROR_MESSAGE,
  IdentityConfigError,
  IdentityModule,
  IdentityStartupError,
  type IdentityConfig,
  type IdentityHttpClient,
  type IdentityModuleOptions,
} from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
import { provisionIdentityDatabase } from '../../../apps/demo/src/identity/demo-identity.provision.js';
import {
  bootIdentity,
  expectNoSecretIn,
  hardenedConfig,
  IDENTITY_DATABASE,
  EMBEDDED_TEST_DATABASES,
  identityForRoot,
  runtimeWith,
  secretRef,
  secretReferences,
  secretValues,
  type BootOutcome,
} from './identity-startup.support.js';

const PROVISION_HINT = /run the provision command \(e\.g\. `npm run provision`\)/;
const MIGRATE_HINT =
  /Identity startup check failed: schema_version\. .*run the migrate command \(e\.g\. `npm run migrate`\)/;
const INITIAL = 'tessera_identity_20261122000000_initial';
const LEDGER = 'tessera_identity_20261122060000_migration_ledger';
const DEVICE_RETRY = 'tessera_identity_20261125000000_device_retry';
const FEDERATION = 'tessera_identity_20261126000000_federation';
const SCIM = 'tessera_identity_20261127000000_scim';
const SESSION_NOTIFY = 'tessera_identity_20261128000000_session_notify';
const RECOVERY_CODE_DIGEST = 'tessera_identity_20261129000000_recovery_code_digest';

/** The environment marker row(s) of the app's database. */
async function markerOf(app: INestApplication): Promise<Record<string, unknown>[]> {
  return app
    .get(MikroORM)
    .em.fork()
    .getConnection()
    .execute('select environment, namespace from tessera_identity.environment');
}

function expectMarkerRefused(outcome: BootOutcome): void {
  expect(outcome.app).toBeUndefined();
  expect(outcome.error).toBeInstanceOf(IdentityStartupError);
  expect((outcome.error as IdentityStartupError).check).toBe('environment_marker');
  expect(outcome.logs).toContainEqual(expect.stringMatching(PROVISION_HINT));
}

function expectSchemaRefused(outcome: BootOutcome): void {
  expect(outcome.app).toBeUndefined();
  expect(outcome.error).toBeInstanceOf(IdentityStartupError);
  expect((outcome.error as IdentityStartupError).check).toBe('schema_version');
  expect((outcome.error as Error).message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
  expect(outcome.logs).toContainEqual(expect.stringMatching(MIGRATE_HINT));
}

/** Runs `statement` on the database at `url`. */
async function execute(url: string, statement: string): Promise<Record<string, unknown>[]> {
  const db = await openDatabase({ ...IDENTITY_DATABASE, url, migrate: 'manual' });
  try {
    return await db.orm.em.fork().getConnection().execute(statement);
  } finally {
    await db.close();
  }
}

/**
 * A database as the build before the migration ledger left it: migrated without the ledger
 * migration, and (unless `marker` is null) carrying the marker its start or provision wrote.
 */
async function migratedBeforeTheLedger(url: string, marker: { environment: string; namespace: string } | null) {
  const list = IDENTITY_DATABASE.migrations!.list.filter(
    ({ name }) =>
      name !== LEDGER &&
      name !== DEVICE_RETRY &&
      name !== FEDERATION &&
      name !== SCIM &&
      name !== SESSION_NOTIFY &&
      name !== RECOVERY_CODE_DIGEST,
  );
  expect(
    await runMigrations({ ...IDENTITY_DATABASE, url, migrations: { ...IDENTITY_DATABASE.migrations!, list } }),
  ).toEqual([INITIAL]);
  if (marker === null) return;
  await execute(
    url,
    `insert into tessera_identity.environment (id, environment, namespace, created_at)
     values (true, '${marker.environment}', '${marker.namespace}', now())`,
  );
}

/** A configured production app (bootstrap pending) on `url`, migrations left to the commands. */
function productionBoot(url: string, secrets: Record<string, string>, overrides: Partial<IdentityConfig> = {}) {
  const config = hardenedConfig('production', {
    bootstrap: { lifecycle: 'pending', secretRef: secretRef('production', 'BOOTSTRAP_SECRET') },
    ...overrides,
  });
  return bootIdentity({
    database: { url, migrate: 'manual' },
    identity: identityForRoot(config, runtimeWith(secrets)),
  });
}

describe('identity environment marker and the provision command (identity-model §9.7)', () => {
  const databases: TestDatabase[] = [];
  const fresh = async (): Promise<TestDatabase> => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  afterAll(async () => {
    for (const database of databases) await database.close();
  });

  it('development migrates, provisions its own marker and starts on a fresh database', async () => {
    const database = await fresh();
    const base = runtimeWith(secretValues('development'));
    // Only staging/production demand the HTTP client self-test: a custom client without one starts here.
    const httpClient = { followsRedirects: false as const, request: base.httpClient.request } as IdentityHttpClient;
    const config: IdentityConfig = {
      environment: 'development',
      publicBaseUrl: 'http://localhost:3000',
      rp: { id: 'localhost', name: 'Tessera development' },
      secrets: secretReferences('development'),
    };
    const outcome = await bootIdentity({
      database: { url: database.url, migrate: 'auto' },
      identity: identityForRoot(config, { ...base, httpClient }),
    });
    expect(outcome.error).toBeUndefined();
    expect(await markerOf(outcome.app!)).toEqual([{ environment: 'development', namespace: 'tessera_development' }]);
    await outcome.app!.close();

    // The same database cannot serve production: neither at start nor through the provision command.
    const production = secretValues('production');
    expectMarkerRefused(await productionBoot(database.url, production));
    await expect(
      provisionIdentityDatabase({ database: { ...IDENTITY_DATABASE, url: database.url }, environment: 'production' }),
    ).rejects.toThrow(
      'this database is provisioned for development/tessera_development, not production/tessera_production; the marker is never overwritten',
    );
  });

  it('production refuses a database that was never provisioned, naming the provision command, and creates nothing', async () => {
    const database = await fresh();
    const secrets = secretValues('production');
    const outcome = await productionBoot(database.url, secrets);
    expectMarkerRefused(outcome);
    expectNoSecretIn(outcome, secrets);
    // Staging/production never migrate at start: the refused boot left the database untouched.
    const db = await openDatabase({ ...IDENTITY_DATABASE, url: database.url, migrate: 'manual' });
    try {
      const schemas = await db.orm.em
        .getConnection()
        .execute(`select 1 from information_schema.schemata where schema_name = 'tessera_identity'`);
      expect(schemas).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('provision migrates and marks the database; production then starts and serves, other environments stay refused', async () => {
    const database = await fresh();
    const options = { database: { ...IDENTITY_DATABASE, url: database.url }, environment: 'production' as const };
    const first = await provisionIdentityDatabase(options);
    expect(first.applied).toEqual([
      INITIAL,
      LEDGER,
      DEVICE_RETRY,
      FEDERATION,
      SCIM,
      SESSION_NOTIFY,
      RECOVERY_CODE_DIGEST,
    ]);
    expect(first.marker).toEqual({ environment: 'production', namespace: 'tessera_production' });
    expect(await provisionIdentityDatabase(options)).toEqual({ applied: [], marker: first.marker });

    const secrets = secretValues('production');
    const started = await productionBoot(database.url, secrets);
    expect(started.error).toBeUndefined();
    const app = started.app!;
    try {
      const res = await request(app.getHttpServer())
        .get('/identity/v1/client-config')
        .set('Host', 'id.example.com')
        .set('X-Forwarded-Proto', 'https');
      expect(res.status).toBe(200);
      // The store answers (marker verified): the database is empty, so bootstrap is offered.
      expect(res.body).toMatchObject({ rpId: 'example.com', features: { bootstrap: true } });
      expect(JSON.stringify(res.body)).not.toContain(secrets[secretRef('production', 'BOOTSTRAP_SECRET')]!);
    } finally {
      await app.close();
    }

    await expect(provisionIdentityDatabase({ ...options, environment: 'staging' })).rejects.toThrow(
      'this database is provisioned for production/tessera_production, not staging/tessera_staging',
    );
    await expect(provisionIdentityDatabase({ ...options, namespace: 'tessera_production_eu' })).rejects.toThrow(
      'not production/tessera_production_eu',
    );
    expectMarkerRefused(await productionBoot(database.url, secrets, { storageNamespace: 'tessera_production_eu' }));
    const staging = secretValues('staging');
    expectMarkerRefused(
      await bootIdentity({
        database: { url: database.url, migrate: 'manual' },
        identity: identityForRoot(hardenedConfig('staging'), runtimeWith(staging)),
      }),
    );
  });

  it('provision refuses development and test, which provision themselves at start', async () => {
    await expect(
      provisionIdentityDatabase({ database: { ...IDENTITY_DATABASE, url: 'postgres://unused' }, environment: 'test' }),
    ).rejects.toThrow(
      'provision is for staging and production (got "test"); development and test provision themselves at start',
    );
  });
});

describe('identity schema version at start (identity-model §9.7)', () => {
  const databases: TestDatabase[] = [];
  const fresh = async (): Promise<TestDatabase> => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  afterAll(async () => {
    for (const database of databases) await database.close();
  });
  const secrets = secretValues('production');
  const production = { environment: 'production', namespace: 'tessera_production' };

  async function expectServes(url: string): Promise<void> {
    const started = await productionBoot(url, secrets);
    expect(started.error).toBeUndefined();
    try {
      const res = await request(started.app!.getHttpServer())
        .get('/identity/v1/client-config')
        .set('Host', 'id.example.com')
        .set('X-Forwarded-Proto', 'https');
      expect(res.status).toBe(200);
    } finally {
      await started.app!.close();
    }
  }

  it('production refuses a database behind this build, naming the migrate command, and starts once it ran', async () => {
    const { url } = await fresh();
    await migratedBeforeTheLedger(url, production);
    const refused = await productionBoot(url, secrets);
    expectSchemaRefused(refused);
    expectNoSecretIn(refused, secrets);
    // Staging/production never migrate at start: the refused boot applied nothing.
    expect(await execute(url, 'select version from tessera_identity.schema_migrations')).toEqual([]);

    // `npm run migrate`
    expect(await runMigrations({ ...IDENTITY_DATABASE, url })).toEqual([
      LEDGER,
      DEVICE_RETRY,
      FEDERATION,
      SCIM,
      SESSION_NOTIFY,
      RECOVERY_CODE_DIGEST,
    ]);
    await expectServes(url);
  });

  it('production refuses a drifted checksum and a migration this build does not know', async () => {
    const { url } = await fresh();
    await provisionIdentityDatabase({ database: { ...IDENTITY_DATABASE, url }, environment: 'production' });
    await expectServes(url);

    const drift = `update tessera_identity.schema_migrations set checksum = reverse(checksum) where version = '${INITIAL}'`;
    await execute(url, drift);
    expectSchemaRefused(await productionBoot(url, secrets));
    await execute(url, drift);

    const newer = 'tessera_identity_20991231000000_future';
    await execute(
      url,
      `insert into tessera_identity.schema_migrations values ('identity', '${newer}', '${'0'.repeat(64)}', now())`,
    );
    expectSchemaRefused(await productionBoot(url, secrets));
    // Migrating with this build cannot help: the provision command says why instead of writing anything.
    await expect(
      provisionIdentityDatabase({ database: { ...IDENTITY_DATABASE, url }, environment: 'production' }),
    ).rejects.toThrow('a released migration was edited (checksum drift) or a newer build migrated this database');
    await execute(url, `delete from tessera_identity.schema_migrations where version = '${newer}'`);

    await execute(url, `delete from tessera_identity.schema_migrations where version = '${LEDGER}'`);
    expectSchemaRefused(await productionBoot(url, secrets));
  });

  it('development brings a database from the build before the ledger to the latest version at start', async () => {
    const { url } = await fresh();
    await migratedBeforeTheLedger(url, { environment: 'development', namespace: 'tessera_development' });
    const outcome = await bootIdentity({
      database: { url, migrate: 'auto' },
      identity: identityForRoot(
        {
          environment: 'development',
          publicBaseUrl: 'http://localhost:3000',
          rp: { id: 'localhost', name: 'Tessera development' },
          secrets: secretReferences('development'),
        },
        runtimeWith(secretValues('development')),
      ),
    });
    expect(outcome.error).toBeUndefined();
    await outcome.app!.close();
    expect(await execute(url, 'select version from tessera_identity.schema_migrations order by version')).toEqual([
      { version: INITIAL },
      { version: LEDGER },
      { version: DEVICE_RETRY },
      { version: FEDERATION },
      { version: SCIM },
      { version: SESSION_NOTIFY },
      { version: RECOVERY_CODE_DIGEST },
    ]);
  });
});

/** Stands in for an application's configuration service. */
@Injectable()
class StartupSettings {
  constructor(@Inject('STARTUP_SECRETS') readonly secrets: Record<string, string>) {}

  identity(overrides: Partial<IdentityConfig> = {}): IdentityModuleOptions {
    return {
      config: hardenedConfig('staging', overrides),
      runtime: runtimeWith(this.secrets),
      unsafeAllowEmbeddedDatabase: EMBEDDED_TEST_DATABASES,
    };
  }
}

describe('IdentityModule.forRootAsync in staging', () => {
  let database: TestDatabase;
  const secrets = secretValues('staging');
  @Module({
    providers: [StartupSettings, { provide: 'STARTUP_SECRETS', useValue: secrets }],
    exports: [StartupSettings],
  })
  class SettingsModule {}
  const asyncIdentity = (overrides: Partial<IdentityConfig> = {}) =>
    IdentityModule.forRootAsync({
      imports: [SettingsModule],
      inject: [StartupSettings],
      useFactory: (settings: StartupSettings) => settings.identity(overrides),
      store: IdentityMikroOrmModule.forRoot(),
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    await provisionIdentityDatabase({ database: { ...IDENTITY_DATABASE, url: database.url }, environment: 'staging' });
  });
  afterAll(async () => database?.close());

  it('starts on a provisioned database with options from an injected provider', async () => {
    const outcome = await bootIdentity({
      database: { url: database.url, migrate: 'manual' },
      identity: asyncIdentity(),
    });
    expect(outcome.error).toBeUndefined();
    const res = await request(outcome.app!.getHttpServer())
      .get('/identity/v1/client-config')
      .set('Host', 'id.example.com')
      .set('X-Forwarded-Proto', 'https');
    expect(res.status).toBe(200);
    await outcome.app!.close();
  });

  it('fails closed with the same actionable configuration error as forRoot', async () => {
    // A failed compile cannot close what it opened: the test owns this ORM.
    const db = await openDatabase({ ...IDENTITY_DATABASE, url: database.url, migrate: 'manual' });
    const outcome = await bootIdentity({
      database: { orm: db.orm },
      identity: asyncIdentity({ registrationPolicy: 'open' }),
    }).finally(() => db.close());
    expect(outcome.error).toBeInstanceOf(IdentityConfigError);
    expect((outcome.error as IdentityConfigError).rule).toBe('registration_policy');
    expect((outcome.error as Error).message).toMatch(/"open" is allowed in development only/);
    expectNoSecretIn(outcome, secrets);
  });
});
