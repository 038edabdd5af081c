// Usage: started by bench/passkey/run.mjs (the competitor; its packages: npm ci --prefix bench/passkey/better-auth).
// Better Auth 1.7.6 with its passkey plugin (@better-auth/passkey, on @simplewebauthn/server 13) on
// the PostgreSQL server named by DATABASE_URL (a fresh database per run, its schema from Better
// Auth's own getMigrations), served the way its docs show for Node (`toNodeHandler` on node:http —
// no framework in front, its best case). Same deployment settings as the Tessera server: a pool of
// 20 connections, the rate limiter off, the expected origin fixed (not taken from the request),
// RP ID `localhost`. GET /__bench/cpu answers the process's CPU time since POST /__bench/reset.
// Prints `<port> <database URL>` when listening.
import http from 'node:http';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@tessera/database';

if (!process.env.DATABASE_URL) throw new Error('bench/passkey runs on a PostgreSQL server: set DATABASE_URL');
// Better Auth lives in its own package folder (its optional peers conflict with the project's tree).
const requireCompetitor = createRequire(new URL('./better-auth/package.json', import.meta.url));
const load = (name) => import(requireCompetitor.resolve(name));
const [{ betterAuth }, { getMigrations }, { toNodeHandler }, { passkey }, pg] = await Promise.all([
  load('better-auth'),
  load('better-auth/db/migration'),
  load('better-auth/node'),
  load('@better-auth/passkey'),
  load('pg'),
]);

const ORIGIN = 'http://localhost:3000';
const database = await createTestDatabase({ prefix: 'tessera_bench_ba' });
const pool = new pg.default.Pool({
  connectionString: database.url,
  max: Number(process.env.TESSERA_BENCH_POOL_MAX ?? 20),
});
const options = {
  appName: 'Bench',
  baseURL: ORIGIN,
  secret: randomBytes(32).toString('base64url'),
  database: pool,
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  logger: { disabled: true },
  plugins: [passkey({ rpID: 'localhost', rpName: 'Bench', origin: ORIGIN })],
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
