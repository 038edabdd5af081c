// Usage: started by bench/scim/run.mjs (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:scim).
// A Nest app with RouterModule + IdentityModule (SCIM on, its defaults) on the PostgreSQL server
// named by DATABASE_URL (a fresh database per run, dropped on SIGTERM), bootstrap pending with the
// secret in BENCH_BOOTSTRAP_SECRET. Instrumented by bench/support/identity-bench-server.mjs: every
// IdentityStore method and the server-side time of each GET /scim/v2/Users; GET /__bench/stats,
// POST /__bench/reset. Besides, the number of statements sent to PostgreSQL (`stats.statements`,
// `begin`/`commit` included: the round trips), and the text, parameters and kind (named prepared statement or unnamed)
// of the first statements since the last reset that touch `scim_users` or `scim_group_members`
// (`stats.sql`, at most 40): run.mjs reads
// them after one untimed request to EXPLAIN exactly the SQL the store ran. With
// BENCH_PLAN_CACHE_MODE (run.mjs --plan-cache-mode) the database's `plan_cache_mode` is set before
// the app connects. Prints `<port> <database URL>` when listening.
import { createRequire } from 'node:module';
import { createTestDatabase } from '@tessera/database';
import { createNodeIdentityRuntime } from '@tessera/identity';
import { benchIdentity } from '../support/identity-bench.mjs';
import { benchStats, serveIdentityBench } from '../support/identity-bench-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/scim runs on a PostgreSQL server: set DATABASE_URL');
const bootstrapSecret = process.env.BENCH_BOOTSTRAP_SECRET;
if (!bootstrapSecret) throw new Error('bench/scim/server.mjs is started by run.mjs (BENCH_BOOTSTRAP_SECRET unset)');

const stats = benchStats(['/scim/v2/Users'], () => ({ sql: [], statements: 0 }));

// The `pg` driver of MikroORM's knex client (the store's statements are named prepared statements
// sent as `{ name, text, values }` query configs through it).
const requireFromOrm = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'));
const { Client } = requireFromOrm('pg');
const query = Client.prototype.query;
Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  stats.current.statements += 1;
  const captured = stats.current.sql;
  if (typeof text === 'string' && captured.length < 40 && /scim_users|scim_group_members/.test(text))
    captured.push({
      text,
      values: typeof config === 'string' ? rest[0] : config.values,
      named: typeof config === 'object' && typeof config.name === 'string',
    });
  return query.call(this, config, ...rest);
};

const identity = benchIdentity({
  bootstrapSecret,
  extra: { store: { kind: 'postgresql' } },
});
const database = await createTestDatabase({ prefix: 'tessera_bench' });
// run.mjs --plan-cache-mode: PostgreSQL's `plan_cache_mode` for the bench database, set before the
// app's pool connects (an operator's setting; `auto`, the server default, unless asked).
const planCacheMode = process.env.BENCH_PLAN_CACHE_MODE ?? 'auto';
if (!['auto', 'force_custom_plan', 'force_generic_plan'].includes(planCacheMode))
  throw new Error('BENCH_PLAN_CACHE_MODE: auto|force_custom_plan|force_generic_plan');
if (planCacheMode !== 'auto') {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  const name = new URL(database.url).pathname.slice(1);
  await client.query(`alter database "${name.replace(/"/g, '""')}" set plan_cache_mode = ${planCacheMode}`);
  await client.end();
}
await serveIdentityBench({
  config: identity.config,
  runtime: createNodeIdentityRuntime({ secrets: identity.secrets }),
  database,
  stats,
});
