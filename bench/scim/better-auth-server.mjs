// Usage: started by bench/scim/run.mjs (the competitor; its packages: npm ci --prefix bench/scim/better-auth).
// Better Auth 1.7.5 with its SCIM plugin (`scim` of `@better-auth/scim` 1.7.5, the newest published
// version of the plugin; better-auth at the same version), served by bench/support/better-auth-server.mjs
// (fresh database with the schema of its getMigrations, pool of 20, rate limiter off, `toNodeHandler`
// on node:http). Its bearer token comes from its managed connection catalog (`managedConnections`:
// HMAC-digested credentials looked up per request, as Tessera's connection tokens are), created by
// its server-only API `createSCIMManagedConnection` on POST /__bench/scim-connection (answers the
// token once, to the load generator only). No role projection is configured (its default: SCIM
// groups grant nothing), where Tessera recomputes the tenant roles of every member a PATCH changes.
// POST /__bench/sql-capture, then POST /__bench/sql: the statements its driver sent in between;
// POST /__bench/statements: how many statements it sent since the last call (and resets).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { serveBetterAuth } from '../support/better-auth-server.mjs';

if (!process.env.DATABASE_URL) throw new Error('bench/scim runs on a PostgreSQL server: set DATABASE_URL');

// The statements its `pg` driver sends between POST /__bench/sql-capture and POST /__bench/sql
// (at most 40, text with `$n` placeholders and the bound values): run.mjs EXPLAINs them.
const packageJson = new URL('./better-auth/package.json', import.meta.url);
const { Client } = createRequire(packageJson)('pg');
const captured = [];
let capturing = false;
let statements = 0;
const query = Client.prototype.query;
Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  statements += 1;
  if (capturing && typeof text === 'string' && captured.length < 40)
    captured.push({
      text,
      values: typeof config === 'string' ? rest[0] : config.values,
      named: typeof config === 'object' && typeof config.name === 'string',
    });
  return query.call(this, config, ...rest);
};
await serveBetterAuth(
  packageJson,
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
      '/__bench/statements': async () => {
        const count = statements;
        statements = 0;
        return { statements: count };
      },
      '/__bench/sql-capture': async () => {
        captured.length = 0;
        capturing = true;
        return {};
      },
      '/__bench/sql': async () => {
        capturing = false;
        return { statements: captured.splice(0) };
      },
    },
  },
);
