// Usage: started by bench/device/run.mjs (the competitor; its packages: npm ci --prefix bench/device/better-auth).
// Better Auth 1.7.6 with its device-authorization plugin (`deviceAuthorization` of
// `better-auth/plugins`), served by bench/support/better-auth-server.mjs (fresh database, pool of
// 20, rate limiter off, `toNodeHandler` on node:http). The client id is checked as Tessera checks
// it (only `tessera-cli`); the polling interval stays its default 5 s (the bench polls each
// approved code once).
import { serveBetterAuth } from '../support/better-auth-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/device runs on a PostgreSQL server: set DATABASE_URL');
await serveBetterAuth(new URL('./better-auth/package.json', import.meta.url), async (load) => {
  const { deviceAuthorization } = await load('better-auth/plugins');
  return [
    deviceAuthorization({ verificationUri: '/device', validateClient: (clientId) => clientId === 'tessera-cli' }),
  ];
});
