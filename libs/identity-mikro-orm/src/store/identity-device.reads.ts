import {
  deviceFamilyStanding,
  type DeviceAccessGrant,
  type DeviceAccessTokenRecord,
  type DeviceGrantRecord,
  type DeviceRefreshTokenRecord,
  type DeviceTokenFamilyRecord,
  type IdentityDeviceReads,
  type StoredDigest,
} from '@tessera/identity';
import { isUuid, table, type Row, type StoreGateway } from './identity-store.gateway.js';
import {
  allColumns,
  DEVICE_TOKEN_FAMILY_FIELDS,
  MEMBERSHIP_FIELDS,
  ORGANIZATION_FIELDS,
  prefixedFields,
  USER_FIELDS,
} from './identity-row.fields.js';
import { membershipFromRow, organizationFromRow, unprefix, userFromRow } from './identity-row.mappers.js';
import { readOne } from './identity-store.reads.js';
import {
  deviceAccessTokenFromRow,
  deviceGrantFromRow,
  deviceRefreshTokenFromRow,
  deviceTokenFamilyFromRow,
} from './identity-device.rows.js';

/**
 * The bearer read: access token, family, and the family's user, organization and membership as
 * they are now, in one indexed join (the membership is the family's snapshot id).
 */
export const DEVICE_ACCESS_GRANT = `select ${allColumns('device_access_tokens', 'a')},
       ${prefixedFields('f', DEVICE_TOKEN_FAMILY_FIELDS, 'f_')}, ${prefixedFields('u', USER_FIELDS, 'u_')},
       ${prefixedFields('o', ORGANIZATION_FIELDS, 'o_')}, ${prefixedFields('m', MEMBERSHIP_FIELDS, 'm_')}
  from ${table('device_access_tokens')} a
  join ${table('device_token_families')} f on f.id = a.family_id
  join ${table('users')} u on u.id = f.user_id
  join ${table('organizations')} o on o.id = f.organization_id
  left join ${table('memberships')} m on m.id = f.membership_id
 where a.public_selector = ?`;

/** A {@link DEVICE_ACCESS_GRANT} row → the grant with its standing. */
export function deviceAccessGrantFromRow(row: Row): DeviceAccessGrant {
  const family = deviceTokenFamilyFromRow(row, 'f_');
  const user = userFromRow(row, 'u_');
  const organization = organizationFromRow(unprefix(row, 'o_'));
  const membership = row['m_id'] === null || row['m_id'] === undefined ? null : membershipFromRow(unprefix(row, 'm_'));
  return {
    accessToken: deviceAccessTokenFromRow(row),
    family,
    user,
    organization,
    membership,
    standing: deviceFamilyStanding(family, { membership, user, organization }),
  };
}

/** The `where` of a grant looked up by its device-code digest. */
export const GRANT_BY_DEVICE_CODE =
  'device_code_digest_algorithm = ? and device_code_digest_encoded = ? and device_code_digest_key_version = ?';
/** The `where` of a grant looked up by its user-code digest. */
export const GRANT_BY_USER_CODE =
  'user_code_digest_algorithm = ? and user_code_digest_encoded = ? and user_code_digest_key_version = ?';

/** `[alg, encoded, key version]`, or `null` for a digest without key version (matches nothing). */
function lookup(digest: StoredDigest): [string, string, string] | null {
  return digest.keyVersion === null ? null : [digest.algorithm, digest.encoded, digest.keyVersion];
}

/**
 * The device-flow reads of identity-model §9.1. Malformed ids or selectors match nothing (an
 * unknown token, not a database error).
 *
 * @example
 * const grant = await new IdentityDeviceReadQueries(gateway).findDeviceGrantByUserCodeDigest(digest);
 */
export class IdentityDeviceReadQueries implements IdentityDeviceReads {
  constructor(private readonly gateway: StoreGateway) {}

  findDeviceGrant(id: string): Promise<DeviceGrantRecord | null> {
    return readOne(this.gateway, 'device_grants', 'id = ?', [id], (row) => deviceGrantFromRow(row), isUuid(id));
  }

  findDeviceGrantByDeviceCodeDigest(digest: StoredDigest): Promise<DeviceGrantRecord | null> {
    const params = lookup(digest);
    return readOne(
      this.gateway,
      'device_grants',
      GRANT_BY_DEVICE_CODE,
      params ?? [],
      (row) => deviceGrantFromRow(row),
      params !== null,
    );
  }

  findDeviceGrantByUserCodeDigest(digest: StoredDigest): Promise<DeviceGrantRecord | null> {
    const params = lookup(digest);
    return readOne(
      this.gateway,
      'device_grants',
      GRANT_BY_USER_CODE,
      params ?? [],
      (row) => deviceGrantFromRow(row),
      params !== null,
    );
  }

  findDeviceTokenFamily(id: string): Promise<DeviceTokenFamilyRecord | null> {
    return readOne(
      this.gateway,
      'device_token_families',
      'id = ?',
      [id],
      (row) => deviceTokenFamilyFromRow(row),
      isUuid(id),
    );
  }

  findDeviceAccessTokenBySelector(selector: string): Promise<DeviceAccessTokenRecord | null> {
    return readOne(
      this.gateway,
      'device_access_tokens',
      'public_selector = ?',
      [selector],
      deviceAccessTokenFromRow,
      isUuid(selector),
    );
  }

  findDeviceRefreshTokenBySelector(selector: string): Promise<DeviceRefreshTokenRecord | null> {
    return readOne(
      this.gateway,
      'device_refresh_tokens',
      'public_selector = ?',
      [selector],
      deviceRefreshTokenFromRow,
      isUuid(selector),
    );
  }

  findDeviceAccessGrant(selector: string): Promise<DeviceAccessGrant | null> {
    if (!isUuid(selector)) return this.gateway.read(async () => null);
    return this.gateway.read(async (sql) => {
      const [row] = await sql(DEVICE_ACCESS_GRANT, [selector]);
      return row === undefined ? null : deviceAccessGrantFromRow(row);
    });
  }
}
