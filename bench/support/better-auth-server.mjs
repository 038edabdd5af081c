// The competitor's server of the identity benchmarks (bench/passkey, bench/device): Better Auth on
// the PostgreSQL server named by DATABASE_URL (a fresh database per run, its schema from Better
// Auth's own getMigrations), served the way its docs show for Node (`toNodeHandler` on node:http —
// no framework in front, its best case), with the Tessera bench servers' deployment settings: a
// pool of TESSERA_BENCH_POOL_MAX (default 20) connections, its rate limiter off, base URL
// http://localhost:3000. GET /__bench/cpu answers the process's CPU time since POST /__bench/reset.
// Prints `<port> <database URL> <PostgreSQL version>` when listening; SIGTERM drops the database.
import http from 'node:http';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@tessera/database';

/**
 * Serves Better Auth from the package folder of `packageJson` (a URL: each bench installs the
 * competitor apart, its optional peers conflict with the project's tree) with the plugins
 * `plugins(load)` resolves to; `load(name)` imports a package of that folder. `benchRoutes` adds
 * POST routes of the bench's own set-up (path → `async (auth) => json`, e.g. a server-only API
 * call of a plugin), answered 200 with that JSON.
 */
export async function serveBetterAuth(packageJson, plugins, { benchRoutes = {} } = {}) {
  const requireCompetitor = createRequire(packageJson);
  const load = (name) => import(requireCompetitor.resolve(name));
  const [{ betterAuth }, { getMigrations }, { toNodeHandler }, pg] = await Promise.all([
    load('better-auth'),
    load('better-auth/db/migration'),
    load('better-auth/node'),
    load('pg'),
  ]);
  const database = await createTestDatabase({ prefix: 'tessera_bench_ba' });
  const pool = new pg.default.Pool({
    connectionString: database.url,
    max: Number(process.env.TESSERA_BENCH_POOL_MAX ?? 20),
  });
  const options = {
    appName: 'Bench',
    baseURL: 'http://localhost:3000',
    secret: randomBytes(32).toString('base64url'),
    database: pool,
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: await plugins(load),
  };
  await (await getMigrations(options)).runMigrations();
  const auth = betterAuth(options);
  const handler = toNodeHandler(auth);

  let cpuAtReset = process.cpuUsage();
  const server = http.createServer((req, res) => {
    if (req.url === '/__bench/cpu') {
      const cpu = process.cpuUsage(cpuAtReset);
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 }));
    }
    if (req.url === '/__bench/reset') {
      cpuAtReset = process.cpuUsage();
      return res.end('{}');
    }
    const benchRoute = req.method === 'POST' ? benchRoutes[req.url] : undefined;
    if (benchRoute !== undefined) {
      return benchRoute(auth).then(
        (json) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(json));
        },
        (error) => {
          res.statusCode = 500;
          res.end(JSON.stringify({ error: String(error?.message ?? error) }));
        },
      );
    }
    return handler(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.listen(0, '127.0.0.1', async () => {
    const { rows } = await pool.query('show server_version');
    process.stdout.write(`${server.address().port} ${database.url} ${rows[0].server_version}\n`);
  });
  let stopping = false;
  // An idle pooled connection ended by the server (the database drop below terminates any backend
  // still closing) is an 'error' event of the pool: expected while stopping, fatal otherwise.
  pool.on('error', (error) => {
    if (!stopping) throw error;
  });
  process.on('SIGTERM', async () => {
    stopping = true;
    server.close();
    await pool.end();
    await database.close();
    process.exit(0);
  });
}
