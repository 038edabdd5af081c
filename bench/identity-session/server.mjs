// A Nest app with the identity platform on the PostgreSQL server named by DATABASE_URL (a fresh
// database per run), one host controller with `GET /guarded` (@RequireIdentity) and `GET /open`,
// `POST /bench/session` (seeds a passkey session: `{ cookie, csrfToken }`), and one seeded passkey
// session. Prints one JSON line when listening: `{ port, cookie, peer }`; `peer` is the environment
// that starts another instance of the same deployment (same database and secrets) with this script.
// `lifetimes.sessionCacheSeconds` is the library default unless TESSERA_BENCH_SESSION_CACHE_SECONDS is set.
import 'reflect-metadata';
import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/core';
import { createTestDatabase } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import { createNodeIdentityRuntime, IdentityModule, RequireIdentity } from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
// White-box access for the bench only: the kernel (keys, raw store) is not part of the public API.
import { IDENTITY_KERNEL } from '../../libs/identity/dist/identity.tokens.js';
import { benchDatabaseModule, benchIdentity, benchPasskeySession } from '../support/identity-bench.mjs';
// The seeding helper only (the testing lib's index also loads the Jest conformance suite).
import { IdentityTestRows } from '@tessera/identity-testing/seed';

if (!process.env.DATABASE_URL) throw new Error('bench/identity-session runs on a PostgreSQL server: set DATABASE_URL');
const peerOf =
  process.env.TESSERA_BENCH_PEER_OF === undefined ? undefined : JSON.parse(process.env.TESSERA_BENCH_PEER_OF);
const cacheSeconds = process.env.TESSERA_BENCH_SESSION_CACHE_SECONDS;
const identity = benchIdentity({
  values: peerOf?.values,
  extra: cacheSeconds === undefined ? {} : { lifetimes: { sessionCacheSeconds: Number(cacheSeconds) } },
});
const database = peerOf === undefined ? await createTestDatabase({ prefix: 'tessera_bench' }) : undefined;
const databaseUrl = peerOf?.databaseUrl ?? database.url;

let seed = async () => undefined;
class HostController {
  guarded() {
    return 'hello';
  }
  open() {
    return 'hello';
  }
  session() {
    return seed();
  }
}
const d = (name) => Object.getOwnPropertyDescriptor(HostController.prototype, name);
Get('guarded')(HostController.prototype, 'guarded', d('guarded'));
RequireIdentity()(HostController.prototype, 'guarded', d('guarded'));
Get('open')(HostController.prototype, 'open', d('open'));
Post('bench/session')(HostController.prototype, 'session', d('session'));
Controller()(HostController);

class AppModule {}
Module({
  imports: [
    benchDatabaseModule(databaseUrl),
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
const userId = peerOf?.userId ?? (await rows.user({ at: new Date() }));
seed = async () => {
  const issued = await benchPasskeySession(kernel, rows, userId);
  return { cookie: `__Host-tessera_session=${issued.cookieToken}`, csrfToken: issued.csrfToken };
};
const { cookie } = await seed();
const peer = { databaseUrl, values: identity.values, userId };
process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port, cookie, peer })}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await database?.close();
  process.exit(0);
});
