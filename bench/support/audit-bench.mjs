// Shared setup of the audit benchmarks (bench/audit/run.mjs, bench/audit/export-server.mjs): the
// identity app on a PostgreSQL database, and the SQL that bulk-inserts an organization's events.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RouterModule } from '@tessera/web';
import { createNodeIdentityRuntime, IdentityModule } from '@tessera/identity';
import { IdentityMikroOrmModule } from '@tessera/identity-mikro-orm';
import { benchDatabaseModule } from './identity-bench.mjs';

/**
 * Inserts `count` events of one organization in one statement (`?` parameters: organization id,
 * first instant in epoch ms, count): four events per instant, 7 s apart, newest last; ids are
 * UUIDv7 of their instant with md5-derived low bits (organizations seeded from different instants
 * get different ids).
 */
export const SEED_AUDIT_EVENTS = `insert into tessera_identity.audit_events
       (id, actor_type, organization_id, action, target_type, target_id, outcome,
        request_id, request_method, request_path, request_trusted_proxy, occurred_at)
     select (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3)
             || substr('89ab', (get_byte(decode(substr(h, 4, 2), 'hex'), 0) % 4) + 1, 1) || substr(h, 6, 15))::uuid,
            'system', ?::uuid, 'membership.changed', 'membership', i::text, 'succeeded',
            'req_bench_' || i, 'PATCH', '/identity/v1/bench', false,
            timestamptz 'epoch' + ms * interval '1 millisecond'
       from (select i, ?::bigint + (i / 4) * 7000 as ms, md5(i::text) as h
               from generate_series(0, ?::int - 1) as i) as s`;

/**
 * RouterModule + IdentityModule (`identity` of `benchIdentity()`, the MikroORM store) on
 * `databaseUrl`, listening on a free port of 127.0.0.1; `databaseOptions` go to
 * `benchDatabaseModule` (e.g. the bounds).
 */
export async function auditBenchApp(identity, databaseUrl, databaseOptions) {
  class AppModule {}
  Module({
    imports: [
      benchDatabaseModule(databaseUrl, undefined, databaseOptions),
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
  return app;
}
