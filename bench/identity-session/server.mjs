// A Nest app with the identity platform on the PostgreSQL server named by DATABASE_URL (a fresh
// database per run), one host controller with `GET /guarded` (@RequireIdentity) and `GET /open`,
// and one seeded passkey session. Prints `<port> <cookie>` when listening.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import {
  createNodeIdentityRuntime,
  IdentityModule,
  issueSession,
  RequireIdentity,
} from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
// White-box access for the bench only: the kernel (keys, raw store) is not part of the public API.
import { IDENTITY_KERNEL } from '../../libs/identity/dist/identity.tokens.js';
import { benchDatabaseModule, benchIdentity } from '../support/identity-bench.mjs';
// The seeding helper only (the testing lib's index also loads the Jest conformance suite).
import { IdentityTestRows } from '@tessera/identity-testing/seed';

if (!process.env.DATABASE_URL) throw new Error('bench/identity-session runs on a PostgreSQL server: set DATABASE_URL');
const identity = benchIdentity({
  extra: { lifetimes: { sessionCacheSeconds: Number(process.env.TESSERA_BENCH_SESSION_CACHE_SECONDS ?? 0) } },
});
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
    benchDatabaseModule(database.url),
    RouterModule.forRoot(),
    IdentityModule.forRoot({
      config: identity.config,
      runtime: createNodeIdentityRuntime({ secrets: identity.secrets }),
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
