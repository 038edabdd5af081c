// The server of the audit-export benchmark (bench/audit/export.mjs starts it as a child process, so
// its RSS is the server's alone): RouterModule + IdentityModule on a fresh PostgreSQL database with
// the default database bounds, two organizations seeded in SQL with --small and --events audit
// events (generate_series, four events per instant), and an admin session in both. Prints one JSON
// line `{port, cookie, small, large}` when listening; SIGTERM closes the app and the database.
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/core';
import pg from 'pg';
import { createTestDatabase } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import { createNodeIdentityRuntime, IdentityModule } from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
// White-box access for the bench only: the kernel (keys, raw store) is not part of the public API.
import { IDENTITY_KERNEL } from '../../libs/identity/dist/identity.tokens.js';
import { benchDatabaseModule, benchIdentity, benchPasskeySession } from '../support/identity-bench.mjs';
// The seeding helper only (the testing lib's index also loads the Jest conformance suite).
import { IdentityTestRows } from '@tessera/identity-testing/seed';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const EVENTS = arg('events', 1_000_000);
const SMALL = arg('small', 100_000);

const identity = benchIdentity();
const database = await createTestDatabase({ prefix: 'tessera_bench' });

class AppModule {}
Module({
  imports: [
    benchDatabaseModule(database.url, undefined, { registerRequestContext: false }),
    RouterModule.forRoot(),
    IdentityModule.forRoot({
      config: identity.config,
      runtime: createNodeIdentityRuntime({ secrets: identity.secrets }),
      store: IdentityMikroOrmModule.forRoot(),
    }),
  ],
})(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const kernel = app.get(IDENTITY_KERNEL);
const rows = new IdentityTestRows(app.get(MikroORM).em);
const userId = await rows.user({ at: new Date() });
const issued = await benchPasskeySession(kernel, rows, userId);

// Seeding outlasts the app's statement bounds: its own connection, without them.
const seeder = new pg.Client({ connectionString: database.url });
await seeder.connect();
const seed = async (count, startMs) => {
  const organizationId = await rows.organization();
  await rows.membership(organizationId, userId, { role: 'admin' });
  // Four events per instant, 7 s apart; ids are UUIDv7 of their instant with md5-derived low bits.
  await seeder.query(
    `insert into tessera_identity.audit_events
       (id, actor_type, organization_id, action, target_type, target_id, outcome,
        request_id, request_method, request_path, request_trusted_proxy, occurred_at)
     select (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3)
             || substr('89ab', (get_byte(decode(substr(h, 4, 2), 'hex'), 0) % 4) + 1, 1) || substr(h, 6, 15))::uuid,
            'system', $1::uuid, 'membership.changed', 'membership', i::text, 'succeeded',
            'req_bench_' || i, 'PATCH', '/identity/v1/bench', false,
            timestamptz 'epoch' + ms * interval '1 millisecond'
       from (select i, $3::bigint + (i / 4) * 7000 as ms, md5(i::text || $1) as h
               from generate_series(0, $2::int - 1) as i) as s`,
    [organizationId, count, startMs],
  );
  return organizationId;
};
const started = performance.now();
const small = await seed(SMALL, 1_780_272_000_000);
const large = await seed(EVENTS, 1_780_272_000_000);
await seeder.query('analyze tessera_identity.audit_events');
await seeder.end();
const [version] = await rows.sql('show server_version');
process.stdout.write(
  `${JSON.stringify({
    port: app.getHttpServer().address().port,
    cookie: `__Host-tessera_session=${issued.cookieToken}`,
    small,
    large,
    seedSeconds: (performance.now() - started) / 1000,
    postgres: version.server_version,
  })}\n`,
);
process.on('SIGTERM', async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
