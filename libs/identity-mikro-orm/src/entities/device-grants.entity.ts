import { EntitySchema } from '@mikro-orm/core';
import {
  DEVICE_GRANT_CODE_KINDS,
  DEVICE_GRANT_STATES,
  IDENTITY_SCHEMA,
  KEYED_DIGEST_ALGORITHMS,
  type DeviceGrantCodeKind,
  type DeviceGrantState,
  type KeyedDigestAlgorithm,
} from '../schema/identity-schema.values.js';
import {
  capabilitiesCheck,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  integerColumn,
  keyedDigestChecks,
  referenceColumn,
  textArrayColumn,
  textColumn,
  timestampColumn,
  uuidColumn,
  versionColumn,
} from './entity-columns.js';

/**
 * One row of `tessera_identity.device_grants` (RFC 8628). The binding columns (`userId` …
 * `approvedCapabilities`) are all `null` until approval and all set from then on.
 *
 * @example
 * const grant = await em.findOne(IdentityDeviceGrantSchema, { id: grantId });
 */
export interface IdentityDeviceGrantRow {
  id: string;
  deviceCodeDigestAlgorithm: KeyedDigestAlgorithm;
  deviceCodeDigestEncoded: string;
  deviceCodeDigestKeyVersion: string;
  userCodeDigestAlgorithm: KeyedDigestAlgorithm;
  userCodeDigestEncoded: string;
  userCodeDigestKeyVersion: string;
  clientId: string;
  clientName: string;
  requestedCapabilities: string[];
  state: DeviceGrantState;
  /** 5..300, +5 per `slow_down`. */
  intervalSeconds: number;
  pollCount: number;
  lastPolledAt: Date | null;
  expiresAt: Date;
  userId: string | null;
  organizationId: string | null;
  membershipId: string | null;
  /** The membership's `version` at approval, rechecked at exchange. */
  membershipVersion: number | null;
  authorizedByUserId: string | null;
  authorizedAt: Date | null;
  /** ⊆ `requestedCapabilities`. */
  approvedCapabilities: string[] | null;
  /** The session that showed the confirmation screen last (approve/deny only from it); set with `inspectedAt`. */
  inspectedBySessionId: string | null;
  inspectedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.device_grants` (UNIQUE device-code and user-code digests).
 *
 * @example
 * const grant = await em.findOne(IdentityDeviceGrantSchema, { userCodeDigestAlgorithm: 'hmac-sha256', userCodeDigestEncoded, userCodeDigestKeyVersion });
 */
export const IdentityDeviceGrantSchema = new EntitySchema<IdentityDeviceGrantRow>({
  name: IDENTITY_ENTITY_NAMES.deviceGrant,
  tableName: 'device_grants',
  schema: IDENTITY_SCHEMA,
  properties: {
    id: uuidColumn('id', { primary: true }),
    deviceCodeDigestAlgorithm: enumColumn('device_code_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    deviceCodeDigestEncoded: textColumn('device_code_digest_encoded'),
    deviceCodeDigestKeyVersion: textColumn('device_code_digest_key_version'),
    userCodeDigestAlgorithm: enumColumn('user_code_digest_algorithm', KEYED_DIGEST_ALGORITHMS),
    userCodeDigestEncoded: textColumn('user_code_digest_encoded'),
    userCodeDigestKeyVersion: textColumn('user_code_digest_key_version'),
    clientId: textColumn('client_id'),
    clientName: textColumn('client_name'),
    requestedCapabilities: textArrayColumn('requested_capabilities'),
    state: enumColumn('state', DEVICE_GRANT_STATES),
    intervalSeconds: integerColumn('interval_seconds', { default: 5 }),
    pollCount: integerColumn('poll_count', { default: 0 }),
    lastPolledAt: timestampColumn('last_polled_at', { nullable: true }),
    expiresAt: timestampColumn('expires_at'),
    userId: referenceColumn(IDENTITY_ENTITY_NAMES.user, 'user_id', 'device_grants_user_id_foreign', { nullable: true }),
    organizationId: referenceColumn(
      IDENTITY_ENTITY_NAMES.organization,
      'organization_id',
      'device_grants_organization_id_foreign',
      { nullable: true },
    ),
    membershipId: referenceColumn(
      IDENTITY_ENTITY_NAMES.membership,
      'membership_id',
      'device_grants_membership_id_foreign',
      { nullable: true },
    ),
    membershipVersion: integerColumn('membership_version', { nullable: true }),
    authorizedByUserId: referenceColumn(
      IDENTITY_ENTITY_NAMES.user,
      'authorized_by_user_id',
      'device_grants_authorized_by_user_id_foreign',
      { nullable: true },
    ),
    authorizedAt: timestampColumn('authorized_at', { nullable: true }),
    approvedCapabilities: textArrayColumn('approved_capabilities', { nullable: true }),
    createdAt: timestampColumn('created_at'),
    updatedAt: timestampColumn('updated_at'),
    version: versionColumn(),
    inspectedBySessionId: referenceColumn(
      IDENTITY_ENTITY_NAMES.session,
      'inspected_by_session_id',
      'device_grants_inspected_by_session_id_foreign',
      { nullable: true },
    ),
    inspectedAt: timestampColumn('inspected_at', { nullable: true }),
  },
  uniques: [
    {
      name: 'device_grants_device_code_digest_unique',
      properties: ['deviceCodeDigestAlgorithm', 'deviceCodeDigestEncoded', 'deviceCodeDigestKeyVersion'],
    },
    {
      name: 'device_grants_user_code_digest_unique',
      properties: ['userCodeDigestAlgorithm', 'userCodeDigestEncoded', 'userCodeDigestKeyVersion'],
    },
  ],
  checks: [
    ...keyedDigestChecks('device_grants', 'device_code_digest'),
    ...keyedDigestChecks('device_grants', 'user_code_digest'),
    check('device_grants_client_id_check', "client_id ~ '^[!-~]{1,200}$'"),
    check('device_grants_client_name_check', 'char_length(client_name) >= 1 and char_length(client_name) <= 200'),
    capabilitiesCheck('device_grants', 'requested_capabilities'),
    capabilitiesCheck('device_grants', 'approved_capabilities'),
    check('device_grants_approved_subset_check', 'approved_capabilities <@ requested_capabilities'),
    check('device_grants_interval_seconds_check', 'interval_seconds >= 5 and interval_seconds <= 300'),
    check('device_grants_poll_count_check', 'poll_count >= 0'),
    check('device_grants_membership_version_check', 'membership_version >= 0'),
    check(
      'device_grants_binding_check',
      'num_nonnulls(user_id, organization_id, membership_id, membership_version, authorized_by_user_id, authorized_at, approved_capabilities) = any (array[0, 7])',
    ),
    check(
      'device_grants_binding_state_check',
      "(state <> all (array['pending', 'denied']) or user_id is null) and (state <> all (array['authorized', 'consumed']) or user_id is not null)",
    ),
    check('device_grants_expiry_check', 'expires_at > created_at'),
    check('device_grants_version_check', 'version >= 0'),
    check('device_grants_inspection_check', '(inspected_by_session_id is null) = (inspected_at is null)'),
  ],
  indexes: [{ name: 'device_grants_expires_at_index', properties: ['expiresAt'] }],
});

/**
 * One row of `tessera_identity.device_grant_digest_reservations`: device and user code digests
 * share one namespace, so a user code can never collide with any device code.
 *
 * @example
 * await em.insert(IdentityDeviceGrantDigestReservationSchema, { digestAlgorithm: 'hmac-sha256', digestEncoded, digestKeyVersion: '1', grantId, kind: 'user', createdAt: now });
 */
export interface IdentityDeviceGrantDigestReservationRow {
  digestAlgorithm: KeyedDigestAlgorithm;
  digestEncoded: string;
  digestKeyVersion: string;
  grantId: string;
  kind: DeviceGrantCodeKind;
  createdAt: Date;
}

/**
 * Entity of `tessera_identity.device_grant_digest_reservations` (PK (alg, encoded, key version), UNIQUE (grant_id, kind)).
 *
 * @example
 * const reservation = await em.findOne(IdentityDeviceGrantDigestReservationSchema, { grantId, kind: 'device' });
 */
export const IdentityDeviceGrantDigestReservationSchema = new EntitySchema<IdentityDeviceGrantDigestReservationRow>({
  name: IDENTITY_ENTITY_NAMES.deviceGrantDigestReservation,
  tableName: 'device_grant_digest_reservations',
  schema: IDENTITY_SCHEMA,
  properties: {
    digestAlgorithm: { ...enumColumn('digest_algorithm', KEYED_DIGEST_ALGORITHMS), primary: true },
    digestEncoded: textColumn('digest_encoded', { primary: true }),
    digestKeyVersion: textColumn('digest_key_version', { primary: true }),
    grantId: referenceColumn(
      IDENTITY_ENTITY_NAMES.deviceGrant,
      'grant_id',
      'device_grant_digest_reservations_grant_id_foreign',
    ),
    kind: enumColumn('kind', DEVICE_GRANT_CODE_KINDS),
    createdAt: timestampColumn('created_at'),
  },
  uniques: [{ name: 'device_grant_digest_reservations_grant_id_kind_unique', properties: ['grantId', 'kind'] }],
  checks: keyedDigestChecks('device_grant_digest_reservations', 'digest'),
});
