// A Nest app with the identity platform on the PostgreSQL server named by DATABASE_URL (a fresh
// database per run), one host controller with `GET /guarded` (@RequireIdentity) and `GET /open`,
// and one seeded passkey session. Prints `<port> <cookie>` when listening.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase, DatabaseModule } from '../../dist/libs/database/src/index.js';
import { RouterModule } from '../../dist/libs/web/src/index.js';
import {
  createInMemorySecretResolver,
  createNodeIdentityRuntime,
  IDENTITY_KERNEL,
  IdentityModule,
  issueSession,
  RequireIdentity,
} from '../../dist/libs/identity/src/index.js';
import {
  IDENTITY_MIGRATIONS_TABLE,
  IDENTITY_SCHEMA,
  identityEntities,
  identityMigrations,
  IdentityMikroOrmModule,
} from '../../dist/libs/identity-mikro-orm/src/index.js';
// The seeding helper only (the testing lib's index also loads the Jest conformance suite).
import { IdentityTestRows } from '../../dist/libs/identity-testing/src/identity-test.seed.js';

if (!process.env.DATABASE_URL) throw new Error('bench/identity-session runs on a PostgreSQL server: set DATABASE_URL');
const names = [
  'SESSION_PEPPER',
  'RECOVERY_PEPPER',
  'DEVICE_PEPPER',
  'SERVICE_PEPPER',
  'AUDIT_KEY',
  'ENCRYPTION_KEY',
  'SIGNING_KEY',
];
const ref = (name) => `env:TESSERA_TEST_${name}`;
const values = Object.fromEntries(names.map((name) => [ref(name), randomBytes(24).toString('base64url')]));
const database = await createTestDatabase({ prefix: 'tessera_bench' });

class HostController {
  guarded() {
    return 'hello';
  }
  open() {
    return 'hello';
  }
}
const d = (name) => Object.getOwnPropertyDescriptor(HostController.prototype, name);
Get('guarded')(HostController.prototype, 'guarded', d('guarded'));
RequireIdentity()(HostController.prototype, 'guarded', d('guarded'));
Get('open')(HostController.prototype, 'open', d('open'));
Controller()(HostController);

class AppModule {}
Module({
  imports: [
    DatabaseModule.forRoot({
      url: database.url,
      entities: [...identityEntities],
      migrations: {
        list: [...identityMigrations],
        schema: IDENTITY_SCHEMA,
        tableName: IDENTITY_MIGRATIONS_TABLE,
        silent: true,
      },
    }),
    RouterModule.forRoot(),
    IdentityModule.forRoot({
      config: {
        environment: 'test',
        publicBaseUrl: 'http://localhost:3000',
        rp: { id: 'localhost', name: 'bench' },
        lifetimes: { sessionCacheSeconds: Number(process.env.TESSERA_BENCH_SESSION_CACHE_SECONDS ?? 0) },
        secrets: {
          sessionPepper: { current: ref('SESSION_PEPPER') },
          recoveryPepper: { current: ref('RECOVERY_PEPPER') },
          devicePepper: { current: ref('DEVICE_PEPPER') },
          servicePepper: { current: ref('SERVICE_PEPPER') },
          auditKey: ref('AUDIT_KEY'),
          encryptionKey: ref('ENCRYPTION_KEY'),
          signingKey: ref('SIGNING_KEY'),
        },
      },
      runtime: createNodeIdentityRuntime({ secrets: createInMemorySecretResolver(values) }),
      store: IdentityMikroOrmModule.forRoot(),
    }),
  ],
  controllers: [HostController],
})(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const kernel = app.get(IDENTITY_KERNEL);
const rows = new IdentityTestRows(app.get(MikroORM).em);
const userId = await rows.user({ at: new Date() });
const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
  userId,
  assurance: 'passkey',
  authenticationMethod: 'passkey',
  authenticatedAt: new Date(),
  lifetimes: { idleSeconds: 86_400, absoluteSeconds: 86_400 },
});
await rows.session(issued.session);
process.stdout.write(`${app.getHttpServer().address().port} __Host-tessera_session=${issued.cookieToken}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
