import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type DynamicModule } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { createTestDatabase, openDatabase, type OpenDatabase, type TestDatabase } from '@tessera/database';
import {
  IDENTITY_STARTUP_ERROR_MESSAGE,
  IdentityModule,
  IdentityRateLimiter,
  IdentityStartupError,
  IdentityStore,
  type IdentityStartupCheck,
} from '@tessera/identity';
import { MikroOrmIdentityStore } from '@tessera/identity-mikro-orm';
import { CHECK_CASES } from './identity-self-tests.cases.js';
import {
  bootIdentity,
  expectNoSecretIn,
  hardenedConfig,
  IDENTITY_DATABASE,
  EMBEDDED_TEST_DATABASES,
  identityForRoot,
  runtimeWith,
  secretValues,
  type BootOutcome,
} from './identity-startup.support.js';

/** A store module whose limiter counts in process memory only (not shared between instances). */
function inProcessLimiterStore(): DynamicModule {
  @Module({})
  class InProcessLimiterStoreModule {}
  const limiter: IdentityRateLimiter = {
    shared: false,
    consume: async () => ({ allowed: true, count: 1, retryAfterSeconds: 1 }),
    probe: async () => undefined,
  };
  return {
    module: InProcessLimiterStoreModule,
    providers: [
      {
        provide: IdentityStore,
        inject: [EntityManager],
        useFactory: (em: EntityManager) => new MikroOrmIdentityStore(em),
      },
      { provide: IdentityRateLimiter, useValue: limiter },
    ],
    exports: [IdentityStore, IdentityRateLimiter],
  };
}

function expectStartupFailure(outcome: BootOutcome, check: IdentityStartupCheck, hint: RegExp): void {
  expect(outcome.app).toBeUndefined();
  expect(outcome.error).toBeInstanceOf(IdentityStartupError);
  const error = outcome.error as IdentityStartupError;
  expect(error.check).toBe(check);
  expect(error.message).toBe(IDENTITY_STARTUP_ERROR_MESSAGE);
  expect(error.hint).toMatch(hint);
  expect(outcome.logs).toContainEqual(
    expect.stringContaining(`Identity startup check failed: ${check}. ${error.hint}`),
  );
}

describe('identity startup self-tests fail closed in staging/production (identity-model §10)', () => {
  let database: TestDatabase;
  let db: OpenDatabase;
  const tlsSetting = process.env['NODE_TLS_REJECT_UNAUTHORIZED'];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase({ ...IDENTITY_DATABASE, url: database.url, migrate: 'auto' });
  });
  afterEach(() => {
    if (tlsSetting === undefined) delete process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
    else process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = tlsSetting;
  });
  afterAll(async () => {
    await db?.close();
    await database?.close();
  });

  it.each(CHECK_CASES)('refuses $name in $environment ($check)', async (testCase) => {
    const { environment, check, hint } = testCase;
    const base = secretValues(environment);
    const secrets = testCase.secrets?.(base) ?? base;
    const config = hardenedConfig(environment, testCase.config);
    const outcome = await bootIdentity({
      database: { orm: db.orm },
      identity: identityForRoot(config, testCase.runtime(secrets)),
    });
    expectStartupFailure(outcome, check, hint);
    expectNoSecretIn(outcome, { ...base, ...secrets });
  });

  it('refuses the default Node HTTP client when TLS verification is switched off process-wide', async () => {
    process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
    const secrets = secretValues('production');
    const outcome = await bootIdentity({
      database: { orm: db.orm },
      identity: identityForRoot(hardenedConfig('production'), runtimeWith(secrets)),
    });
    expectStartupFailure(outcome, 'http_client_self_test', /NODE_TLS_REJECT_UNAUTHORIZED=0/);
  });

  it.each(['staging', 'production'] as const)('refuses an in-process rate limiter in %s', async (environment) => {
    const secrets = secretValues(environment);
    const outcome = await bootIdentity({
      database: { orm: db.orm },
      identity: IdentityModule.forRoot({
        config: hardenedConfig(environment),
        runtime: runtimeWith(secrets),
        store: inProcessLimiterStore(),
        unsafeAllowEmbeddedDatabase: EMBEDDED_TEST_DATABASES,
      }),
    });
    expectStartupFailure(outcome, 'rate_limiter', /shared by every instance .*in-process limiter is refused/);
    expectNoSecretIn(outcome, secrets);
  });
});

describe('staging/production refuse embedded PGlite by asking the live connection (identity-model §10)', () => {
  let database: TestDatabase;
  let db: OpenDatabase;
  beforeAll(async () => {
    // Always embedded PGlite, whatever DATABASE_URL says ('' names no server).
    database = await createTestDatabase({ url: '' });
    db = await openDatabase({ ...IDENTITY_DATABASE, url: database.url, migrate: 'auto' });
    // The embedded bound (jest.config.js) even on a server run: PGlite boots and migrates here.
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await database?.close();
  });

  it.each(['staging', 'production'] as const)(
    'refuses PGlite behind a store.kind "postgresql" declaration in %s (only the declaration was checked)',
    async (environment) => {
      const secrets = secretValues(environment);
      const outcome = await bootIdentity({
        database: { orm: db.orm },
        identity: identityForRoot(hardenedConfig(environment), runtimeWith(secrets), false),
      });
      expectStartupFailure(
        outcome,
        'store_engine',
        /need a PostgreSQL server: the live database connection reports embedded PGlite/,
      );
      expectNoSecretIn(outcome, secrets);
    },
  );

  it('reports the engine from the server itself', async () => {
    const store = new MikroOrmIdentityStore(db.orm);
    expect(await store.inspectDatabaseEngine()).toBe('pglite');
  });
});
