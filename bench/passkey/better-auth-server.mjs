// Usage: started by bench/passkey/run.mjs (the competitor; its packages: npm ci --prefix bench/passkey/better-auth).
// Better Auth 1.7.6 with its passkey plugin (@better-auth/passkey, on @simplewebauthn/server 13),
// served by bench/support/better-auth-server.mjs (fresh database, pool of 20, rate limiter off,
// `toNodeHandler` on node:http); the expected origin fixed (not taken from the request), RP ID
// `localhost`.
import { serveBetterAuth } from '../support/better-auth-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/passkey runs on a PostgreSQL server: set DATABASE_URL');
await serveBetterAuth(new URL('./better-auth/package.json', import.meta.url), async (load) => {
  const { passkey } = await load('@better-auth/passkey');
  return [passkey({ rpID: 'localhost', rpName: 'Bench', origin: 'http://localhost:3000' })];
});
