// Usage: started by bench/scim/run.mjs (the competitor; its packages: npm ci --prefix bench/scim/better-auth).
// Better Auth 1.7.5 with its SCIM plugin (`scim` of `@better-auth/scim` 1.7.5, the newest published
// version of the plugin; better-auth at the same version), served by bench/support/better-auth-server.mjs
// (fresh database with the schema of its getMigrations, pool of 20, rate limiter off, `toNodeHandler`
// on node:http). Its bearer token comes from its managed connection catalog (`managedConnections`:
// HMAC-digested credentials looked up per request, as Tessera's connection tokens are), created by
// its server-only API `createSCIMManagedConnection` on POST /__bench/scim-connection (answers the
// token once, to the load generator only). No role projection is configured (its default: SCIM
// groups grant nothing), where Tessera recomputes the tenant roles of every member a PATCH changes.
import { randomBytes } from 'node:crypto';
import { serveBetterAuth } from '../support/better-auth-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/scim runs on a PostgreSQL server: set DATABASE_URL');
await serveBetterAuth(
  new URL('./better-auth/package.json', import.meta.url),
  async (load) => {
    const { scim } = await load('@better-auth/scim');
    return [
      scim({ connections: [], managedConnections: { credentialHashSecret: randomBytes(32).toString('base64url') } }),
    ];
  },
  {
    benchRoutes: {
      '/__bench/scim-connection': async (auth) => {
        const created = await auth.api.createSCIMManagedConnection({
          body: {
            creationRequestId: randomBytes(16).toString('hex'),
            provisioningDomainId: 'bench',
            actorId: 'bench',
            scopes: ['scim.users.read', 'scim.users.write', 'scim.groups.read', 'scim.groups.write'],
            expiresAt: new Date(Date.now() + 24 * 3600 * 1000),
          },
        });
        return { connectionId: created.connection.connectionId, token: created.token };
      },
    },
  },
);
