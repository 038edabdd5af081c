// The Tessera side of bench/scim: the bootstrapped owner (passkey session) creates the
// organization's SCIM connection over HTTP (POST /identity/v1/organizations/{orgId}/scim/connections,
// Okta, group "Admins" → admin), the first `httpUsers` SCIM users are created over HTTP with its
// bearer token, and the rest are cloned in SQL from user 7's rows in `users`, `memberships`,
// `scim_users` and `scim_user_emails` (bench/scim/seed-rows.mjs), then ANALYZE.
import pg from 'pg';
import { expectStatus, request } from '../support/bench-http.mjs';
import { passkeyOwner } from '../support/passkey-accounts.mjs';
import { md5, scimSide } from './scim-side.mjs';
import { cloneRows, userTokens } from './seed-rows.mjs';

const SCHEMA = 'tessera_identity';
const TEMPLATE = 7;

/** The uuid spelling of an md5 (the seeded rows' ids: `md5('bench-<kind>-<n>')::uuid`). */
const uuidOf = (hex) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const seededUuid = (kind) => `md5('bench-${kind}-' || n)::uuid`;
const later = (column) => `t0.${column} + n * interval '1 millisecond'`;

/**
 * The owner, the connection and its token on the server at `base` (the bench's fresh database at
 * `databaseUrl`), then `users` SCIM users. Resolves with the SCIM side and its organization id.
 */
export async function tesseraScim({ base, databaseUrl, bootstrapSecret, users, httpUsers, concurrency, log }) {
  const owner = await passkeyOwner(base, bootstrapSecret);
  const created = await request(base, 'POST', `/identity/v1/organizations/${owner.organizationId}/scim/connections`, {
    body: { providerName: 'okta', groupRoles: [{ match: { displayName: 'Admins' }, role: 'admin' }] },
    cookies: [owner.session.cookie],
    csrfToken: owner.session.csrfToken,
  });
  const { connection, token } = expectStatus(created, 201, 'scim connection').json;
  const side = scimSide({
    name: 'Tessera',
    base,
    root: '/scim/v2',
    token,
    scimId: (n) => uuidOf(md5(`bench-scim-${n}`)),
  });
  let t0 = Date.now();
  await side.createUsers(httpUsers, concurrency);
  log(`Tessera: ${httpUsers} users over HTTP in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  t0 = Date.now();
  await seedTessera(databaseUrl, owner.organizationId, httpUsers + 1, users);
  log(`Tessera: users ${httpUsers + 1}..${users} in SQL in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { side, organizationId: owner.organizationId, connectionId: connection.id };
}

/** Clones user TEMPLATE's rows for users `from..to` in one transaction, then ANALYZE. */
async function seedTessera(databaseUrl, organizationId, from, to) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const params = [organizationId, userTokens(TEMPLATE).userName];
    const scimUser = `(select id from ${SCHEMA}.scim_users where organization_id = $1 and user_name = $2)`;
    const user = `(select user_id from ${SCHEMA}.scim_users where organization_id = $1 and user_name = $2)`;
    const common = { schema: SCHEMA, templateN: TEMPLATE, params, from, to };
    const timestamps = { created_at: later('created_at'), updated_at: later('updated_at') };
    await client.query('begin');
    await cloneRows(client, {
      ...common,
      table: 'users',
      templateWhere: `t0.id = ${user}`,
      exprs: { id: seededUuid('user'), ...timestamps },
      perUser: ['id', 'created_at', 'updated_at'],
    });
    await cloneRows(client, {
      ...common,
      table: 'scim_users',
      templateWhere: 't0.organization_id = $1 and t0.user_name = $2',
      exprs: { id: seededUuid('scim'), user_id: seededUuid('user'), ...timestamps },
      perUser: ['id', 'user_id', 'created_at', 'updated_at'],
    });
    await cloneRows(client, {
      ...common,
      table: 'memberships',
      templateWhere: `t0.organization_id = $1 and t0.user_id = ${user}`,
      exprs: { id: seededUuid('membership'), user_id: seededUuid('user'), ...timestamps },
      perUser: ['id', 'user_id', 'created_at', 'updated_at'],
    });
    await cloneRows(client, {
      ...common,
      table: 'scim_user_emails',
      templateWhere: `t0.scim_user_id = ${scimUser}`,
      exprs: { scim_user_id: seededUuid('scim') },
      perUser: ['scim_user_id'],
    });
    await client.query('commit');
    for (const table of ['users', 'memberships', 'scim_users', 'scim_user_emails'])
      await client.query(`analyze ${SCHEMA}.${table}`);
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
