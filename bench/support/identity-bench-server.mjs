// The instrumented Nest app of the identity HTTP benchmarks (bench/passkey/server.mjs,
// bench/device/server.mjs): RouterModule + IdentityModule on a PostgreSQL database, every
// IdentityStore method timed (awaited wall time summed, through a Proxy on the provider), the
// server-side wall time and status of each request to a timed path (HTTP server `request` →
// response `finish`), and GET /__bench/stats (totals since POST /__bench/reset, the process's CPU
// time, the PostgreSQL version). Prints `<port> <database URL>` when listening; SIGTERM closes the
// app and the database.
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EntityManager } from '@mikro-orm/core';
import { RouterModule } from '@tessera/web';
import { IdentityModule, IdentityRateLimiter, IdentityStore } from '@tessera/identity';
import { MikroOrmIdentityStore, PostgresRateLimiter } from '@tessera/identity-mikro-orm';
import { benchDatabaseModule } from './identity-bench.mjs';

/**
 * Totals since the last reset, every time in wall-clock milliseconds: `store` (calls, ms, per
 * method), `requests` (per timed path: count, ms, statuses) and whatever `extra()` adds (e.g. the
 * passkey bench's crypto timings), reachable as `stats.current`.
 */
export function benchStats(timedPaths, extra = () => ({})) {
  const stats = {
    current: undefined,
    cpuAtReset: undefined,
    resetAt: undefined,
    reset() {
      stats.current = {
        store: { calls: 0, ms: 0, methods: {} },
        requests: Object.fromEntries(timedPaths.map((path) => [path, { count: 0, ms: 0, statuses: {} }])),
        ...extra(),
      };
      stats.cpuAtReset = process.cpuUsage();
      stats.resetAt = performance.now();
    },
  };
  stats.reset();
  return stats;
}

/**
 * The store behind a Proxy: each method call's wall time until its promise settles is added to
 * `stats`. Methods run on the real instance, so the store's own internal calls are not counted twice.
 */
function timedStore(inner, stats) {
  const wrappers = new Map();
  const record = (name, t0) => {
    const ms = performance.now() - t0;
    const { store } = stats.current;
    const method = (store.methods[name] ??= { calls: 0, ms: 0 });
    method.calls += 1;
    method.ms += ms;
    store.calls += 1;
    store.ms += ms;
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

/**
 * Serves the identity platform (`config`, `runtime`) on `database` ({ url, close }) with `stats`
 * recorded, a pool of `TESSERA_BENCH_POOL_MAX` (default 20) connections, and no per-request
 * RequestContext: no route of the benches uses the EntityManager, and its AsyncLocalStorage would
 * turn on promise hooks for every promise of the process (Node 20).
 */
export async function serveIdentityBench({ config, runtime, database, stats }) {
  // The store module of IdentityMikroOrmModule.forRoot(), with the store wrapped.
  class BenchStoreModule {}
  Module({})(BenchStoreModule);
  const benchStore = {
    module: BenchStoreModule,
    providers: [
      {
        provide: IdentityStore,
        inject: [EntityManager],
        useFactory: (em) => timedStore(new MikroOrmIdentityStore(em), stats),
      },
      { provide: IdentityRateLimiter, inject: [EntityManager], useFactory: (em) => new PostgresRateLimiter(em) },
    ],
    exports: [IdentityStore, IdentityRateLimiter],
  };

  let postgres = 'unknown';
  class BenchController {
    stats() {
      const cpu = process.cpuUsage(stats.cpuAtReset);
      return {
        ...stats.current,
        elapsedMs: performance.now() - stats.resetAt,
        cpuMs: (cpu.user + cpu.system) / 1000,
        postgres,
      };
    }
    reset() {
      stats.reset();
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
      // One pooled connection per concurrent client (default 20): the pool is a deployment setting.
      benchDatabaseModule(
        database.url,
        { max: Number(process.env.TESSERA_BENCH_POOL_MAX ?? 20) },
        { registerRequestContext: false },
      ),
      RouterModule.forRoot(),
      IdentityModule.forRoot({ config, runtime, store: benchStore }),
    ],
    controllers: [BenchController],
  })(AppModule);

  const app = await NestFactory.create(AppModule, { logger: false });
  // First listener on the HTTP server: the request's server-side wall time, headers in → response end.
  app.getHttpServer().prependListener('request', (req, res) => {
    const t0 = performance.now();
    const path = req.url.split('?')[0];
    res.once('finish', () => {
      const entry = stats.current.requests[path];
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
}
