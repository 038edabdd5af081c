import { table, type Sql } from './identity-store.gateway.js';

/*
 * The device-flow part of the maintenance purge (identity-model §9: nothing grows without bound).
 * Rows another transaction holds are skipped (`skip locked`); children go before their parents,
 * one statement each, inside the purge's transaction.
 */

/** Deletes the batch's grants (and their code reservations); returns how many grants went. */
async function deleteGrants(sql: Sql, grantIds: readonly string[]): Promise<number> {
  if (grantIds.length === 0) return 0;
  await sql(`delete from ${table('device_grant_digest_reservations')} where grant_id = any(?::uuid[])`, [grantIds]);
  const gone = await sql(`delete from ${table('device_grants')} where id = any(?::uuid[]) returning id`, [grantIds]);
  return gone.length;
}

/** Grants never exchanged (any state but `consumed`) whose expiry is at or before `before`. */
export async function purgeExpiredDeviceGrants(sql: Sql, before: Date, batchSize: number): Promise<number> {
  const rows = await sql(
    `select id from ${table('device_grants')} where state <> 'consumed' and expires_at <= ? limit ? for update skip locked`,
    [before, batchSize],
  );
  return deleteGrants(
    sql,
    rows.map((row) => String(row['id'])),
  );
}

/**
 * Token families past their absolute expiry (any state), with their tokens, the tokens'
 * reservations, and the consumed grant they came from.
 */
export async function purgeExpiredDeviceTokenFamilies(sql: Sql, before: Date, batchSize: number): Promise<number> {
  const rows = await sql(
    `select id, device_grant_id from ${table('device_token_families')} where expires_at <= ? limit ? for update skip locked`,
    [before, batchSize],
  );
  if (rows.length === 0) return 0;
  const familyIds = rows.map((row) => String(row['id']));
  for (const [kind, tokens] of [
    ['refresh', 'device_refresh_tokens'],
    ['access', 'device_access_tokens'],
  ] as const)
    await sql(
      `delete from ${table('device_token_credential_reservations')} r using ${table(tokens)} t
        where t.family_id = any(?::uuid[]) and r.kind = ? and r.token_id = t.id`,
      [familyIds, kind],
    );
  // Refresh tokens first: they reference each other and the access token of a kept successor.
  await sql(`delete from ${table('device_refresh_tokens')} where family_id = any(?::uuid[])`, [familyIds]);
  await sql(`delete from ${table('device_access_tokens')} where family_id = any(?::uuid[])`, [familyIds]);
  await sql(`delete from ${table('device_token_families')} where id = any(?::uuid[])`, [familyIds]);
  await deleteGrants(
    sql,
    rows.map((row) => String(row['device_grant_id'])),
  );
  return familyIds.length;
}

/** Clears the sealed successors whose retry window ended at or before `before`; returns how many. */
export async function clearEndedRetryWindows(sql: Sql, before: Date, batchSize: number): Promise<number> {
  const rows = await sql(
    `update ${table('device_refresh_tokens')}
        set retry_sealed_successor = null, retry_until = null, retry_access_token_id = null,
            updated_at = ?, version = version + 1
      where id in (select id from ${table('device_refresh_tokens')}
                    where retry_until <= ? limit ? for update skip locked)
    returning id`,
    [before, before, batchSize],
  );
  return rows.length;
}
