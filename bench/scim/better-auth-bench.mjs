// The competitor side of bench/scim: starts bench/scim/better-auth-server.mjs (installing its
// package folder on first use), takes a SCIM bearer token from its managed connection catalog
// (`createSCIMManagedConnection`, server-only, through the server's POST /__bench/scim-connection),
// creates the first `httpUsers` users over its POST /api/auth/scim/v2/Users, and clones the rest
// in SQL from user 7's rows in its `user`, `scimUser` and `scimSubject` tables (bench/scim/seed-rows.mjs),
// with its lookup keys computed as its plugin computes them (`createScopedKey`: base64url without
// padding of the SHA-256 of the JSON array of the key's parts), then ANALYZE.
import pg from 'pg';
import { expectStatus, request } from '../support/bench-http.mjs';
import { startBetterAuthServer } from '../support/better-auth-client.mjs';
import { md5, scimSide } from './scim-side.mjs';
import { cloneRows, userTokens } from './seed-rows.mjs';

const TEMPLATE = 7;
// @better-auth/scim 1.7.5 `createScopedKey(parts)`, in SQL.
const SCOPED_KEY = `create function pg_temp.scoped_key(parts text[]) returns text language sql immutable as $$
  select rtrim(translate(encode(sha256(convert_to(array_to_json(parts)::text, 'UTF8')), 'base64'), '+/', '-_'), '=')
$$`;
const later = (column) => `t0."${column}" + n * interval '1 millisecond'`;

/**
 * Better Auth with its SCIM plugin and `users` SCIM users in one managed connection. Resolves with
 * the SCIM side, `statementsOf(run)`, `databaseUrl`, `reset()`/`cpuMs()` of the server's CPU time,
 * `postgres` and `stop()`.
 */
export async function startBetterAuthScim({ users, httpUsers, concurrency, log }) {
  const competitor = await startBetterAuthServer(
    new URL('./better-auth-server.mjs', import.meta.url),
    new URL('./better-auth', import.meta.url),
  );
  try {
    const connection = expectStatus(
      await request(competitor.base, 'POST', '/__bench/scim-connection'),
      200,
      'better-auth scim connection',
    ).json;
    const side = scimSide({
      name: 'Better Auth',
      base: competitor.base,
      root: '/api/auth/scim/v2',
      token: connection.token,
      scimId: (n) => md5(`bench-scim-${n}`),
    });
    let t0 = Date.now();
    await side.createUsers(httpUsers, concurrency);
    log(`Better Auth: ${httpUsers} users over HTTP in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    t0 = Date.now();
    await seedBetterAuth(competitor.databaseUrl, httpUsers + 1, users);
    log(`Better Auth: users ${httpUsers + 1}..${users} in SQL in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const bench = async (path) =>
      expectStatus(await request(competitor.base, 'POST', path), 200, `better-auth ${path}`).json;
    return {
      ...competitor,
      side,
      /** How many statements its server sent since the last call. */
      statementCount: async () => (await bench('/__bench/statements')).statements,
      /** The statements its server sent while `run()` ran (text with `$n`, values). */
      async statementsOf(run) {
        await bench('/__bench/sql-capture');
        await run();
        return (await bench('/__bench/sql')).statements;
      },
    };
  } catch (error) {
    await competitor.stop();
    throw error;
  }
}

async function seedBetterAuth(databaseUrl, from, to) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(SCOPED_KEY);
    const params = [userTokens(TEMPLATE).userName];
    const user = `(select "userId" from "scimUser" where "userName" = $1)`;
    const common = { schema: 'public', templateN: TEMPLATE, params, from, to };
    const timestamps = { createdAt: later('createdAt'), updatedAt: later('updatedAt') };
    const userId = `md5('bench-user-' || n)`;
    const scimId = `md5('bench-scim-' || n)`;
    const key = (...parts) => `pg_temp.scoped_key(array[${parts.join(', ')}])`;
    const emailIndex = `'|' || ${key(`'scim-email-value'`, `'user.' || n || '@example.org'`)} || '|'`;
    await client.query('begin');
    await cloneRows(client, {
      ...common,
      table: 'user',
      templateWhere: `t0.id = ${user}`,
      exprs: { id: userId, ...timestamps },
      perUser: ['id', 'createdAt', 'updatedAt'],
    });
    await cloneRows(client, {
      ...common,
      table: 'scimUser',
      templateWhere: 't0."userName" = $1',
      exprs: {
        id: scimId,
        userId,
        connectionUserKey: key(`'scim-user'`, 't0."connectionId"', userId),
        userNameKey: key(`'scim-user-name'`, 't0."connectionId"', `'user.' || n || '@example.com'`),
        externalIdKey: key(`'scim-user-external-id'`, 't0."connectionId"', `'00u' || lpad(n::text, 8, '0')`),
        workEmailValueIndex: emailIndex,
        emailValueIndex: emailIndex,
        // `createSCIMOrderKey`: the creation time in ms, 15 digits, ':' and 16 random characters.
        orderKey: `lpad((floor(extract(epoch from t0."createdAt") * 1000)::bigint + n)::text, 15, '0') || ':' || substr(md5('bench-order-' || n), 1, 16)`,
        ...timestamps,
      },
      perUser: ['id', 'userId', 'connectionUserKey', 'orderKey', 'createdAt', 'updatedAt'],
    });
    await cloneRows(client, {
      ...common,
      table: 'scimSubject',
      templateWhere: `t0."userId" = ${user}`,
      exprs: { id: `md5('bench-subject-' || n)`, userId, profileSourceId: scimId, ...timestamps },
      perUser: ['id', 'userId', 'profileSourceId', 'createdAt', 'updatedAt'],
    });
    await client.query('commit');
    for (const table of ['user', 'scimUser', 'scimSubject']) await client.query(`analyze "${table}"`);
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
