// Usage: started by bench/passkey/run.mjs (npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/passkey/run.mjs --rounds 5 --duration 5).
// A Nest app with RouterModule + IdentityModule on the PostgreSQL server named by DATABASE_URL (a
// fresh database per run), bootstrap pending with the secret in BENCH_BOOTSTRAP_SECRET and the
// passkey_auth_start / passkey_auth_finish rate limits disabled so the limiter does not cap the
// bench. Instrumented (bench/support/identity-bench-server.mjs): the runtime crypto (es256Verify,
// sha256 timed), every IdentityStore method
// (awaited wall time summed, through a Proxy on the provider) and the server-side wall time of each
// request (HTTP server `request` → response `finish`). GET /__bench/stats answers the totals since
// POST /__bench/reset. Prints `<port> <database URL>` when listening; with BENCH_DATABASE_URL it uses
// that database (run.mjs --servers N: the first server's) instead of creating one.
import { performance } from 'node:perf_hooks';
import { createTestDatabase } from '@tessera/database';
import { createNodeIdentityRuntime } from '@tessera/identity';
import { benchIdentity } from '../support/identity-bench.mjs';
import { benchStats, serveIdentityBench } from '../support/identity-bench-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/passkey runs on a PostgreSQL server: set DATABASE_URL');
const bootstrapSecret = process.env.BENCH_BOOTSTRAP_SECRET;
if (!bootstrapSecret) throw new Error('bench/passkey/server.mjs is started by run.mjs (BENCH_BOOTSTRAP_SECRET unset)');

const TIMED_PATHS = ['/identity/v1/passkeys/authentication/start', '/identity/v1/passkeys/authentication/finish'];
const stats = benchStats(TIMED_PATHS, () => ({
  crypto: { es256Verify: { calls: 0, ms: 0 }, sha256: { calls: 0, ms: 0 } },
}));

/** The runtime crypto with es256Verify and sha256 timed (both synchronous). */
function timedCrypto(inner) {
  const timed = (name) =>
    function (...args) {
      const t0 = performance.now();
      try {
        return inner[name](...args);
      } finally {
        const entry = stats.current.crypto[name];
        entry.calls += 1;
        entry.ms += performance.now() - t0;
      }
    };
  return Object.freeze({
    sha256: timed('sha256'),
    hmacSha256: (...args) => inner.hmacSha256(...args),
    timingSafeEqual: (...args) => inner.timingSafeEqual(...args),
    p256PublicKeyValidate: (...args) => inner.p256PublicKeyValidate(...args),
    es256Verify: timed('es256Verify'),
    rsaSha256Verify: (...args) => inner.rsaSha256Verify(...args),
    ed25519Verify: (...args) => inner.ed25519Verify(...args),
    selfTest: () => inner.selfTest(),
    capabilities: inner.capabilities,
  });
}

const identity = benchIdentity({
  bootstrapSecret,
  extra: {
    // The limiter would cap the run (sign-ins) and the setup (one enrollment per worker, one peer).
    rateLimits: { passkey_auth_start: false, passkey_auth_finish: false, invitation_enroll: false },
    store: { kind: 'postgresql' },
  },
});
const secrets = identity.secrets;
const runtime = createNodeIdentityRuntime({
  secrets,
  crypto: timedCrypto(createNodeIdentityRuntime({ secrets }).crypto),
});
// A fresh database, or (a second server process of the same run) the first one's.
const database = process.env.BENCH_DATABASE_URL
  ? { url: process.env.BENCH_DATABASE_URL, close: async () => undefined }
  : await createTestDatabase({ prefix: 'tessera_bench' });

await serveIdentityBench({ config: identity.config, runtime, database, stats });
