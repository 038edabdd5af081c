// Usage: started by bench/passkey/run.mjs (npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/passkey/run.mjs --rounds 5 --duration 5).
// A Nest app with RouterModule + IdentityModule on the PostgreSQL server named by DATABASE_URL (a
// fresh database per run), bootstrap pending with the secret in BENCH_BOOTSTRAP_SECRET and the
// passkey_auth_start / passkey_auth_finish rate limits disabled so the limiter does not cap the
// bench. Instrumented: the runtime crypto (es256Verify, sha256 timed), every IdentityStore method
// (awaited wall time summed, through a Proxy on the provider) and the server-side wall time of each
// request (HTTP server `request` → response `finish`). GET /__bench/stats answers the totals since
// POST /__bench/reset. Prints `<port> <database URL>` when listening; with BENCH_DATABASE_URL it uses
// that database (run.mjs --servers N: the first server's) instead of creating one.
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EntityManager } from '@mikro-orm/core';
import { createTestDatabase } from '@tessera/database';
import { RouterModule } from '@tessera/web';
import {
  createNodeIdentityRuntime,
  IdentityModule,
  IdentityRateLimiter,
  IdentityStore,
} from '@tessera/identity';
import { MikroOrmIdentityStore, PostgresRateLimiter } from '@tessera/identity-mikro-orm';
import { benchDatabaseModule, benchIdentity } from '../support/identity-bench.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/passkey runs on a PostgreSQL server: set DATABASE_URL');
const bootstrapSecret = process.env.BENCH_BOOTSTRAP_SECRET;
if (!bootstrapSecret) throw new Error('bench/passkey/server.mjs is started by run.mjs (BENCH_BOOTSTRAP_SECRET unset)');

const TIMED_PATHS = ['/identity/v1/passkeys/authentication/start', '/identity/v1/passkeys/authentication/finish'];

/** Totals since the last reset; every time is wall-clock milliseconds. */
let stats;
let postgres = 'unknown';
let cpuAtReset;
let resetAt;
function reset() {
  stats = {
    store: { calls: 0, ms: 0, methods: {} },
    crypto: { es256Verify: { calls: 0, ms: 0 }, sha256: { calls: 0, ms: 0 } },
    requests: Object.fromEntries(TIMED_PATHS.map((path) => [path, { count: 0, ms: 0, statuses: {} }])),
  };
  cpuAtReset = process.cpuUsage();
  resetAt = performance.now();
}
reset();

/** The runtime crypto with es256Verify and sha256 timed (both synchronous). */
function timedCrypto(inner) {
  const timed = (name) =>
    function (...args) {
      const t0 = performance.now();
      try {
        return inner[name](...args);
      } finally {
        const entry = stats.crypto[name];
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
    selfTest: () => inner.selfTest(),
    capabilities: inner.capabilities,
  });
}

/**
 * The store behind a Proxy: each method call's wall time until its promise settles is added to the
 * totals. Methods run on the real instance, so the store's own internal calls are not counted twice.
 */
function timedStore(inner) {
  const wrappers = new Map();
  const record = (name, t0) => {
    const ms = performance.now() - t0;
    const method = (stats.store.methods[name] ??= { calls: 0, ms: 0 });
    method.calls += 1;
    method.ms += ms;
    stats.store.calls += 1;
    stats.store.ms += ms;
  };
  return new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
      let wrapper = wrappers.get(prop);
      if (wrapper === undefined) {
        wrapper = (...args) => {
          const t0 = performance.now();
          let result;
          try {
            result = value.apply(target, args);
          } catch (error) {
            record(prop, t0);
            throw error;
          }
          if (result === null || typeof result?.then !== 'function') {
            record(prop, t0);
            return result;
          }
          return result.finally(() => record(prop, t0));
        };
        wrappers.set(prop, wrapper);
      }
      return wrapper;
    },
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

// The store module of IdentityMikroOrmModule.forRoot(), with the store wrapped.
class BenchStoreModule {}
Module({})(BenchStoreModule);
const benchStore = {
  module: BenchStoreModule,
  providers: [
    { provide: IdentityStore, inject: [EntityManager], useFactory: (em) => timedStore(new MikroOrmIdentityStore(em)) },
    { provide: IdentityRateLimiter, inject: [EntityManager], useFactory: (em) => new PostgresRateLimiter(em) },
  ],
  exports: [IdentityStore, IdentityRateLimiter],
};

class BenchController {
  stats() {
    const cpu = process.cpuUsage(cpuAtReset);
    return { ...stats, elapsedMs: performance.now() - resetAt, cpuMs: (cpu.user + cpu.system) / 1000, postgres };
  }
  reset() {
    reset();
    return { ok: true };
  }
}
const d = (name) => Object.getOwnPropertyDescriptor(BenchController.prototype, name);
Get('stats')(BenchController.prototype, 'stats', d('stats'));
Post('reset')(BenchController.prototype, 'reset', d('reset'));
Controller('__bench')(BenchController);

class AppModule {}
Module({
  imports: [
    // One pooled connection per concurrent sign-in (default 20): the pool is a deployment setting.
    // No per-request RequestContext: no route here uses the EntityManager, and its AsyncLocalStorage
    // would turn on promise hooks for every promise of the process (Node 20).
    benchDatabaseModule(
      database.url,
      { max: Number(process.env.TESSERA_BENCH_POOL_MAX ?? 20) },
      { registerRequestContext: false },
    ),
    RouterModule.forRoot(),
    IdentityModule.forRoot({
      config: identity.config,
      runtime,
      store: benchStore,
    }),
  ],
  controllers: [BenchController],
})(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
// First listener on the HTTP server: the request's server-side wall time, headers in → response end.
app.getHttpServer().prependListener('request', (req, res) => {
  const t0 = performance.now();
  const path = req.url.split('?')[0];
  res.once('finish', () => {
    const entry = stats.requests[path];
    if (entry === undefined) return;
    entry.count += 1;
    entry.ms += performance.now() - t0;
    entry.statuses[res.statusCode] = (entry.statuses[res.statusCode] ?? 0) + 1;
  });
});
// Keep-alive sockets outlive the pauses between rounds (Node's 5 s default would close a socket the
// load generator is about to reuse: ECONNRESET).
app.getHttpServer().keepAliveTimeout = 65_000;
app.getHttpServer().headersTimeout = 66_000;
await app.listen(0, '127.0.0.1');
const [version] = await app.get(EntityManager).getConnection().execute('show server_version');
postgres = version?.server_version ?? 'unknown';
process.stdout.write(`${app.getHttpServer().address().port} ${database.url}\n`);
process.on('SIGTERM', async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
