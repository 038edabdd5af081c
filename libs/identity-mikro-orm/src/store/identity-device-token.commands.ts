import {
  deviceFamilyStanding,
  type DeviceFamilyStanding,
  type DeviceRefreshOutcome,
  type DeviceTokenFamilyRecord,
  type DeviceTokenPair,
  type IdentityDeviceCommands,
  type NewDeviceTokenPair,
} from '@tessera/identity';
import {
  abort,
  CommittedRejection,
  insertRow,
  insertRows,
  isUuid,
  table,
  type Row,
  type Sql,
  type StoreGateway,
} from './identity-store.gateway.js';
import {
  allColumns,
  MEMBERSHIP_FIELDS,
  ORGANIZATION_FIELDS,
  prefixedFields,
  USER_FIELDS,
} from './identity-row.fields.js';
import {
  bytes,
  instant,
  membershipFromRow,
  organizationFromRow,
  unprefix,
  userFromRow,
} from './identity-row.mappers.js';
import { insertAudit } from './identity-session.commands.js';
import {
  deviceAccessTokenColumns,
  deviceAccessTokenFromRow,
  deviceRefreshTokenColumns,
  deviceRefreshTokenFromRow,
  deviceTokenFamilyFromRow,
  deviceTokenReservationColumns,
  digestParams,
} from './identity-device.rows.js';

type Commands = IdentityDeviceCommands;

/** Why a family is revoked (`device_token_families.revoked_reason`). */
export type FamilyRevocationReason = Parameters<Commands['revokeDeviceTokenFamily']>[0]['reason'];

/**
 * The membership, user and organization of a delegation as they are now, and the standing of the
 * snapshot against them. The membership row is locked `for share` (a concurrent role change or
 * removal waits for this transaction or is seen); user and organization are read unlocked, so
 * this lock never orders against the user-row locks of session commands.
 */
export async function lockFamilyStanding(
  sql: Sql,
  snapshot: { userId: string; organizationId: string; membershipId: string; membershipVersion: number },
): Promise<DeviceFamilyStanding> {
  const [row] = await sql(
    `select ${prefixedFields('m', MEMBERSHIP_FIELDS, 'm_')}, ${prefixedFields('u', USER_FIELDS, 'u_')},
            ${prefixedFields('o', ORGANIZATION_FIELDS, 'o_')}
       from ${table('memberships')} m
       join ${table('users')} u on u.id = m.user_id
       join ${table('organizations')} o on o.id = m.organization_id
      where m.id = ?
      for share of m`,
    [snapshot.membershipId],
  );
  if (row === undefined) return 'membership_changed';
  const membership = membershipFromRow(unprefix(row, 'm_'));
  if (membership.userId !== snapshot.userId || membership.organizationId !== snapshot.organizationId)
    return 'membership_changed';
  return deviceFamilyStanding(snapshot, {
    membership,
    user: userFromRow(row, 'u_'),
    organization: organizationFromRow(unprefix(row, 'o_')),
  });
}

/**
 * Inserts an issued pair (access token, refresh token at `rotationCounter`) and reserves both
 * selectors and digests in the shared namespace. Expiries must lie after `at` and at or before
 * the family's expiry.
 */
export async function insertTokenPair(
  sql: Sql,
  family: { id: string; expiresAt: Date },
  pair: NewDeviceTokenPair,
  rotationCounter: number,
  at: Date,
): Promise<DeviceTokenPair> {
  for (const token of [pair.accessToken, pair.refreshToken])
    if (token.expiresAt.getTime() <= at.getTime() || token.expiresAt.getTime() > family.expiresAt.getTime())
      abort('invalid_transition');
  await insertRows(sql, 'device_token_credential_reservations', [
    deviceTokenReservationColumns('access', pair.accessToken, at),
    deviceTokenReservationColumns('refresh', pair.refreshToken, at),
  ]);
  const accessToken = deviceAccessTokenFromRow(
    await insertRow(sql, 'device_access_tokens', deviceAccessTokenColumns(pair.accessToken, family.id, at)),
  );
  const refreshToken = deviceRefreshTokenFromRow(
    await insertRow(
      sql,
      'device_refresh_tokens',
      deviceRefreshTokenColumns(pair.refreshToken, family.id, rotationCounter, at),
    ),
  );
  return { accessToken, refreshToken };
}

/** The family row locked `for update` (every family command takes this lock first), or `not_found`. */
async function lockFamily(sql: Sql, familyId: string): Promise<DeviceTokenFamilyRecord> {
  if (!isUuid(familyId)) abort('not_found');
  const [row] = await sql(
    `select ${allColumns('device_token_families')} from ${table('device_token_families')} where id = ? for update`,
    [familyId],
  );
  return deviceTokenFamilyFromRow(row ?? abort('not_found'));
}

/**
 * An `active` family → `revoked` with every active access and refresh token, and every sealed
 * successor of the family deleted (the caller holds the family lock).
 */
export async function revokeFamily(
  sql: Sql,
  familyId: string,
  reason: FamilyRevocationReason,
  at: Date,
): Promise<DeviceTokenFamilyRecord> {
  const [row] = await sql(
    `update ${table('device_token_families')}
        set state = 'revoked', revoked_at = ?, revoked_reason = ?, updated_at = ?, version = version + 1
      where id = ? and state = 'active'
    returning ${allColumns('device_token_families')}`,
    [at, reason, at, familyId],
  );
  await sql(
    `update ${table('device_access_tokens')}
        set state = 'revoked', revoked_at = ?, updated_at = ?, version = version + 1
      where family_id = ? and state = 'active'`,
    [at, at, familyId],
  );
  await sql(
    `update ${table('device_refresh_tokens')}
        set state = case when state = 'active' then 'revoked' else state end,
            revoked_at = case when state = 'active' then ? else revoked_at end,
            retry_sealed_successor = null, retry_until = null, retry_access_token_id = null,
            updated_at = ?, version = version + 1
      where family_id = ? and (state = 'active' or retry_until is not null)`,
    [at, at, familyId],
  );
  return deviceTokenFamilyFromRow(row ?? abort('invalid_transition'));
}

/**
 * The family of the access or refresh token whose selector and digest match, locked `for update`,
 * or `not_found`: one statement, the token row read unlocked (its family never changes), so the
 * family lock still comes first.
 */
async function lockFamilyOfToken(
  sql: Sql,
  kind: 'access' | 'refresh',
  token: { selector: string; tokenDigest: Parameters<typeof digestParams>[0] },
): Promise<DeviceTokenFamilyRecord> {
  if (!isUuid(token.selector) || token.tokenDigest.keyVersion === null) abort('not_found');
  const [row] = await sql(
    `select ${allColumns('device_token_families')} from ${table('device_token_families')}
      where id = (select family_id from ${table(kind === 'access' ? 'device_access_tokens' : 'device_refresh_tokens')}
                   where public_selector = ? and token_digest_algorithm = ? and token_digest_encoded = ?
                     and token_digest_key_version = ?)
      for update`,
    [token.selector, ...digestParams(token.tokenDigest)],
  );
  return deviceTokenFamilyFromRow(row ?? abort('not_found'));
}

/**
 * Refresh rotation with the retry window, and family revocation (identity-model §5.5 as changed by
 * issue 13). Every command locks the family row `for update` first, then the token row, so
 * rotations, retries and revocations of one family run one at a time and never deadlock.
 *
 * @example
 * const outcome = await new IdentityDeviceTokenCommandHandlers(gateway).rotateDeviceRefreshToken(input);
 */
export class IdentityDeviceTokenCommandHandlers implements Pick<
  Commands,
  'rotateDeviceRefreshToken' | 'revokeDeviceTokenFamily'
> {
  constructor(private readonly gateway: StoreGateway) {}

  rotateDeviceRefreshToken(
    input: Parameters<Commands['rotateDeviceRefreshToken']>[0],
  ): ReturnType<Commands['rotateDeviceRefreshToken']> {
    const { selector, tokenDigest, clientId, successor, sealedSuccessor, retryUntil, at, audits } = input;
    return this.gateway.command(async (sql): Promise<DeviceRefreshOutcome | CommittedRejection> => {
      if ((sealedSuccessor === null) !== (retryUntil === null)) abort('invalid_transition');
      const family = await lockFamilyOfToken(sql, 'refresh', { selector, tokenDigest });
      const [locked] = await sql(
        `select ${allColumns('device_refresh_tokens')}, retry_sealed_successor, retry_access_token_id
           from ${table('device_refresh_tokens')} where public_selector = ? for update`,
        [selector],
      );
      const row = locked ?? abort('not_found');
      const token = deviceRefreshTokenFromRow(row);
      if (family.clientId !== clientId || family.state !== 'active') abort('invalid_transition');
      if (at.getTime() >= family.expiresAt.getTime()) abort('invalid_transition');
      const standing = await lockFamilyStanding(sql, family);
      const revoke = async (reason: FamilyRevocationReason, kind: 'replay_detected' | 'membership_changed') => {
        const revoked = await revokeFamily(sql, family.id, reason, at);
        for (const audit of audits({ kind, family: revoked })) await insertAudit(sql, audit);
        return new CommittedRejection(kind === 'replay_detected' ? 'replay_detected' : 'invalid_transition');
      };

      if (token.state === 'rotated') {
        const kept = await this.keptSuccessor(sql, row, token.rotatedToId, at);
        if (kept === null) return revoke('refresh_token_replay', 'replay_detected');
        if (standing !== 'current') return revoke('membership_authorization_changed', 'membership_changed');
        for (const audit of audits({ kind: 'retried', family, successor: kept.successor }))
          await insertAudit(sql, audit);
        return { kind: 'retried', family, sealedSuccessor: kept.sealed, successor: kept.successor };
      }
      if (token.state !== 'active' || at.getTime() >= token.expiresAt.getTime()) abort('invalid_transition');
      if (standing !== 'current') return revoke('membership_authorization_changed', 'membership_changed');

      const issued = await insertTokenPair(sql, family, successor, token.rotationCounter + 1, at);
      const window = sealedSuccessor !== null && retryUntil !== null && retryUntil.getTime() > at.getTime();
      const [rotated] = await sql(
        `update ${table('device_refresh_tokens')}
            set state = 'rotated', rotated_to_id = ?, consumed_at = ?,
                retry_sealed_successor = ?, retry_until = ?, retry_access_token_id = ?,
                updated_at = ?, version = version + 1
          where id = ? and state = 'active'
        returning ${allColumns('device_refresh_tokens')}`,
        [
          issued.refreshToken.id,
          at,
          window ? Buffer.from(sealedSuccessor) : null,
          window ? retryUntil : null,
          window ? issued.accessToken.id : null,
          at,
          token.id,
        ],
      );
      // The presented token's own parent kept this token sealed for retries: it is used now.
      await sql(
        `update ${table('device_refresh_tokens')}
            set retry_sealed_successor = null, retry_until = null, retry_access_token_id = null,
                updated_at = ?, version = version + 1
          where family_id = ? and rotation_counter = ? and retry_until is not null`,
        [at, family.id, token.rotationCounter - 1],
      );
      for (const audit of audits({ kind: 'refreshed', family, successor: issued })) await insertAudit(sql, audit);
      return {
        kind: 'rotated',
        family,
        previous: deviceRefreshTokenFromRow(rotated ?? abort('invalid_transition')),
        successor: issued,
      };
    });
  }

  revokeDeviceTokenFamily(
    input: Parameters<Commands['revokeDeviceTokenFamily']>[0],
  ): ReturnType<Commands['revokeDeviceTokenFamily']> {
    const { family: reference, clientId, reason, at, audit } = input;
    return this.gateway.command(async (sql) => {
      const family =
        'familyId' in reference
          ? await lockFamily(sql, reference.familyId)
          : 'refreshToken' in reference
            ? await lockFamilyOfToken(sql, 'refresh', reference.refreshToken)
            : await lockFamilyOfToken(sql, 'access', reference.accessToken);
      if (clientId !== null && family.clientId !== clientId) abort('not_found');
      if (family.state !== 'active') return { family, changed: false };
      const revoked = await revokeFamily(sql, family.id, reason, at);
      await insertAudit(sql, audit(revoked));
      return { family: revoked, changed: true };
    });
  }

  /**
   * The sealed successor a rotated token still keeps at `at` (window open, successor unused),
   * with the successor's rows; `null` when a presentation now is a replay.
   */
  private async keptSuccessor(
    sql: Sql,
    row: Row,
    successorId: string | null,
    at: Date,
  ): Promise<{ sealed: Uint8Array; successor: DeviceTokenPair } | null> {
    if (row['retry_sealed_successor'] === null || row['retry_until'] === null || successorId === null) return null;
    if (at.getTime() >= instant(row, 'retry_until').getTime()) return null;
    const [refresh] = await sql(
      `select ${allColumns('device_refresh_tokens')} from ${table('device_refresh_tokens')} where id = ?`,
      [successorId],
    );
    const [access] = await sql(
      `select ${allColumns('device_access_tokens')} from ${table('device_access_tokens')} where id = ?`,
      [row['retry_access_token_id']],
    );
    if (refresh === undefined || access === undefined) return null;
    const successor = {
      accessToken: deviceAccessTokenFromRow(access),
      refreshToken: deviceRefreshTokenFromRow(refresh),
    };
    if (successor.refreshToken.state !== 'active' || successor.accessToken.state !== 'active') return null;
    return { sealed: bytes(row, 'retry_sealed_successor'), successor };
  }
}
