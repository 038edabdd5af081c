import type {
  DeviceAccessTokenRecord,
  DeviceGrantRecord,
  DeviceRefreshTokenRecord,
  DeviceTokenFamilyRecord,
  NewDeviceGrant,
  NewDeviceToken,
  StoredDigest,
} from '@tessera/identity';
import { abort, type Row } from './identity-store.gateway.js';
import { textArrayLiteral } from './identity-row.columns.js';
import { digest, instant, integer, optionalInstant, optionalText, text, textArray } from './identity-row.mappers.js';

/* Rows of tessera_identity.device_grants / device_token_families / device_*_tokens ↔ the port's records. */

/** The key version of a keyed digest (device digests always carry one). */
export function keyVersionOf(value: StoredDigest): string {
  return value.keyVersion ?? abort('invalid_transition');
}

/** `(alg, encoded, key version)` parameters of a digest, in the column order of every digest triple. */
export function digestParams(value: StoredDigest): [string, string, string] {
  return [value.algorithm, value.encoded, keyVersionOf(value)];
}

/** Scopes as stored: distinct and sorted, so the stored set has one spelling. */
export function sortedScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].sort();
}

/** Columns of a new pending grant. */
export function deviceGrantColumns(grant: NewDeviceGrant, at: Date): Row {
  const [deviceAlgorithm, deviceEncoded, deviceKeyVersion] = digestParams(grant.deviceCodeDigest);
  const [userAlgorithm, userEncoded, userKeyVersion] = digestParams(grant.userCodeDigest);
  return {
    id: grant.id,
    device_code_digest_algorithm: deviceAlgorithm,
    device_code_digest_encoded: deviceEncoded,
    device_code_digest_key_version: deviceKeyVersion,
    user_code_digest_algorithm: userAlgorithm,
    user_code_digest_encoded: userEncoded,
    user_code_digest_key_version: userKeyVersion,
    client_id: grant.clientId,
    client_name: grant.clientName,
    requested_capabilities: textArrayLiteral(sortedScopes(grant.requestedCapabilities)),
    state: 'pending',
    interval_seconds: grant.intervalSeconds,
    poll_count: 0,
    last_polled_at: null,
    expires_at: grant.expiresAt,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** Columns of a new access token (the selector is the id). */
export function deviceAccessTokenColumns(token: NewDeviceToken, familyId: string, at: Date): Row {
  const [algorithm, encoded, keyVersion] = digestParams(token.tokenDigest);
  return {
    id: token.id,
    family_id: familyId,
    public_selector: token.id,
    token_digest_algorithm: algorithm,
    token_digest_encoded: encoded,
    token_digest_key_version: keyVersion,
    state: 'active',
    expires_at: token.expiresAt,
    created_at: at,
    updated_at: at,
    revoked_at: null,
    version: 0,
  };
}

/** Columns of a new active refresh token at `rotationCounter`. */
export function deviceRefreshTokenColumns(
  token: NewDeviceToken,
  familyId: string,
  rotationCounter: number,
  at: Date,
): Row {
  const [algorithm, encoded, keyVersion] = digestParams(token.tokenDigest);
  return {
    id: token.id,
    family_id: familyId,
    public_selector: token.id,
    token_digest_algorithm: algorithm,
    token_digest_encoded: encoded,
    token_digest_key_version: keyVersion,
    state: 'active',
    rotation_counter: rotationCounter,
    rotated_to_id: null,
    consumed_at: null,
    expires_at: token.expiresAt,
    created_at: at,
    updated_at: at,
    revoked_at: null,
    version: 0,
  };
}

/** Columns of the reservation of a token's selector and digest in the shared access/refresh namespace. */
export function deviceTokenReservationColumns(kind: 'access' | 'refresh', token: NewDeviceToken, at: Date): Row {
  const [algorithm, encoded, keyVersion] = digestParams(token.tokenDigest);
  return {
    kind,
    token_id: token.id,
    public_selector: token.id,
    digest_algorithm: algorithm,
    digest_encoded: encoded,
    digest_key_version: keyVersion,
    created_at: at,
  };
}

/** A device grant row (`prefix` reads joined columns selected as `<prefix><column>`). */
export function deviceGrantFromRow(row: Row, prefix = ''): DeviceGrantRecord {
  const column = (name: string) => `${prefix}${name}`;
  const userId = optionalText(row, column('user_id'));
  const inspector = optionalText(row, column('inspected_by_session_id'));
  return {
    id: text(row, column('id')),
    deviceCodeDigest: digest(row, column('device_code_digest')),
    userCodeDigest: digest(row, column('user_code_digest')),
    clientId: text(row, column('client_id')),
    clientName: text(row, column('client_name')),
    requestedCapabilities: textArray(row, column('requested_capabilities')),
    state: text(row, column('state')) as DeviceGrantRecord['state'],
    intervalSeconds: integer(row, column('interval_seconds')),
    pollCount: integer(row, column('poll_count')),
    lastPolledAt: optionalInstant(row, column('last_polled_at')),
    expiresAt: instant(row, column('expires_at')),
    authorization:
      userId === null
        ? null
        : {
            userId,
            organizationId: text(row, column('organization_id')),
            membershipId: text(row, column('membership_id')),
            membershipVersion: integer(row, column('membership_version')),
            authorizedByUserId: text(row, column('authorized_by_user_id')),
            authorizedAt: instant(row, column('authorized_at')),
            approvedCapabilities: textArray(row, column('approved_capabilities')),
          },
    inspection: inspector === null ? null : { sessionId: inspector, inspectedAt: instant(row, column('inspected_at')) },
    createdAt: instant(row, column('created_at')),
    updatedAt: instant(row, column('updated_at')),
    version: integer(row, column('version')),
  };
}

/** A token family row (`prefix` as for grants). */
export function deviceTokenFamilyFromRow(row: Row, prefix = ''): DeviceTokenFamilyRecord {
  const column = (name: string) => `${prefix}${name}`;
  return {
    id: text(row, column('id')),
    deviceGrantId: text(row, column('device_grant_id')),
    userId: text(row, column('user_id')),
    organizationId: text(row, column('organization_id')),
    membershipId: text(row, column('membership_id')),
    membershipVersion: integer(row, column('membership_version')),
    clientId: text(row, column('client_id')),
    capabilities: textArray(row, column('capabilities')),
    state: text(row, column('state')) as DeviceTokenFamilyRecord['state'],
    expiresAt: instant(row, column('expires_at')),
    createdAt: instant(row, column('created_at')),
    updatedAt: instant(row, column('updated_at')),
    revokedAt: optionalInstant(row, column('revoked_at')),
    revokedReason: optionalText(row, column('revoked_reason')),
    version: integer(row, column('version')),
  };
}

/** An access token row. */
export function deviceAccessTokenFromRow(row: Row): DeviceAccessTokenRecord {
  return {
    id: text(row, 'id'),
    familyId: text(row, 'family_id'),
    tokenDigest: digest(row, 'token_digest'),
    state: text(row, 'state') as DeviceAccessTokenRecord['state'],
    expiresAt: instant(row, 'expires_at'),
    createdAt: instant(row, 'created_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
    version: integer(row, 'version'),
  };
}

/** A refresh token row (without its sealed successor). */
export function deviceRefreshTokenFromRow(row: Row): DeviceRefreshTokenRecord {
  return {
    id: text(row, 'id'),
    familyId: text(row, 'family_id'),
    tokenDigest: digest(row, 'token_digest'),
    state: text(row, 'state') as DeviceRefreshTokenRecord['state'],
    rotationCounter: integer(row, 'rotation_counter'),
    rotatedToId: optionalText(row, 'rotated_to_id'),
    consumedAt: optionalInstant(row, 'consumed_at'),
    retryUntil: optionalInstant(row, 'retry_until'),
    expiresAt: instant(row, 'expires_at'),
    createdAt: instant(row, 'created_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
    version: integer(row, 'version'),
  };
}
