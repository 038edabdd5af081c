// The server of the audit-export benchmark (bench/audit/export.mjs starts it as a child process, so
// its RSS is the server's alone): RouterModule + IdentityModule on a fresh PostgreSQL database with
// the default database bounds, two organizations seeded in SQL with --small and --events audit
// events (generate_series, four events per instant), and an admin session in both. Prints one JSON
// line `{port, cookie, small, large, database}` when listening; SIGTERM closes the app and the database.
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { MikroORM } from '@mikro-orm/core';
import pg from 'pg';
import { createTestDatabase } from '@tessera/database';
// White-box access for the bench only: the kernel (keys, raw store) is not part of the public API.
import { IDENTITY_KERNEL } from '../../libs/identity/dist/identity.tokens.js';
import { benchIdentity, benchPasskeySession } from '../support/identity-bench.mjs';
import { auditBenchApp, SEED_AUDIT_EVENTS } from '../support/audit-bench.mjs';
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

const app = await auditBenchApp(identity, database.url, { registerRequestContext: false });
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
  let index = 0;
  await seeder.query(
    SEED_AUDIT_EVENTS.replace(/\?/g, () => `$${++index}`),
    [organizationId, startMs, count],
  );
  return organizationId;
};
const started = performance.now();
// Different first instants: different event ids.
const small = await seed(SMALL, 1_700_000_000_000);
const large = await seed(EVENTS, 1_780_272_000_000);
await seeder.query('analyze tessera_identity.audit_events');
await seeder.end();
const [version] = await rows.sql('show server_version');
const [{ database: databaseName }] = await rows.sql('select current_database() as database');
process.stdout.write(
  `${JSON.stringify({
    port: app.getHttpServer().address().port,
    cookie: `__Host-tessera_session=${issued.cookieToken}`,
    small,
    large,
    seedSeconds: (performance.now() - started) / 1000,
    postgres: version.server_version,
    database: databaseName,
  })}\n`,
);
process.on('SIGTERM', async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
