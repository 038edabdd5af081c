// Usage: started by bench/device/run.mjs (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:device).
// A Nest app with RouterModule + IdentityModule on the PostgreSQL server named by DATABASE_URL (a
// fresh database per run, dropped on SIGTERM), bootstrap pending with the secret in
// BENCH_BOOTSTRAP_SECRET, the demo's device allowlist, and the limiter off for the token endpoint
// (`oauth_token`, 60 per minute per peer and client id: the one load generator would hit it at
// once) and for the setup (`device_user_code` for inspect/approve, `device_code_holder`,
// `invitation_enroll` for one member per worker).
// Instrumented by bench/support/identity-bench-server.mjs: every IdentityStore method and the
// server-side time of each POST /oauth/token; GET /__bench/stats, POST /__bench/reset. Prints
// `<port> <database URL>` when listening.
import { createTestDatabase } from '@tessera/database';
import { createNodeIdentityRuntime } from '@tessera/identity';
import { benchIdentity } from '../support/identity-bench.mjs';
import { benchStats, serveIdentityBench } from '../support/identity-bench-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/device runs on a PostgreSQL server: set DATABASE_URL');
const bootstrapSecret = process.env.BENCH_BOOTSTRAP_SECRET;
if (!bootstrapSecret) throw new Error('bench/device/server.mjs is started by run.mjs (BENCH_BOOTSTRAP_SECRET unset)');

const identity = benchIdentity({
  bootstrapSecret,
  extra: {
    capabilities: { device: ['identity.organizations', 'identity.profile', 'package.publish'], service: [] },
    rateLimits: { oauth_token: false, device_user_code: false, device_code_holder: false, invitation_enroll: false },
    store: { kind: 'postgresql' },
  },
});
await serveIdentityBench({
  config: identity.config,
  runtime: createNodeIdentityRuntime({ secrets: identity.secrets }),
  database: await createTestDatabase({ prefix: 'tessera_bench' }),
  stats: benchStats(['/oauth/token']),
});
