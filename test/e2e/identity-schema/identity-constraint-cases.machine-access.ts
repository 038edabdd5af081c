/** Constraint cases of non-browser access: service identities and credentials, device grants and device tokens. */
import {
  check,
  foreign,
  keyedDigest,
  long,
  outsider,
  unique,
  version,
  type ConstraintCase,
  type ViolationCode,
} from './identity-constraint-cases.builders.js';
import { uuidV7, type Row } from './identity-rows.fixture.js';

export const serviceIdentities: ConstraintCase[] = [
  unique('service_identities_pkey', 'service_identities', (first) => ({ id: first.id })),
  unique('service_identities_organization_id_name_unique', 'service_identities', (first) => ({
    organization_id: first.organization_id,
    name: first.name,
  })),
  foreign('service_identities_organization_id_foreign', 'service_identities', { organization_id: uuidV7() }),
  check('service_identities_name_check', 'service_identities', { name: '' }),
  check('service_identities_description_check', 'service_identities', { description: long(2001) }),
  check('service_identities_capabilities_check', 'service_identities', { capabilities: ['Content.Read'] }),
  outsider('service_identities', 'state', 'deleted'),
  check('service_identities_revocation_check', 'service_identities', { state: 'revoked', revoked_at: null }),
  version('service_identities'),
];

export const serviceCredentials: ConstraintCase[] = [
  unique('service_credentials_pkey', 'service_credentials', (first) => ({ id: first.id, public_prefix: uuidV7() })),
  unique('service_credentials_public_prefix_unique', 'service_credentials', (first) => ({
    public_prefix: first.public_prefix,
  })),
  unique('service_credentials_secret_digest_unique', 'service_credentials', (first) => ({
    secret_digest_encoded: first.secret_digest_encoded,
  })),
  foreign('service_credentials_service_identity_id_foreign', 'service_credentials', {
    service_identity_id: uuidV7(),
  }),
  foreign('service_credentials_rotated_to_id_foreign', 'service_credentials', (rows) =>
    Promise.resolve({ state: 'rotated', rotated_at: rows.now, rotated_to_id: uuidV7() }),
  ),
  check('service_credentials_public_prefix_check', 'service_credentials', { public_prefix: 'tsc_0123456789' }),
  ...keyedDigest('service_credentials', 'secret_digest'),
  check('service_credentials_capabilities_check', 'service_credentials', { capabilities: [] }),
  outsider('service_credentials', 'state', 'suspended'),
  check('service_credentials_expiry_check', 'service_credentials', (rows) =>
    Promise.resolve({ expires_at: rows.at(-1) }),
  ),
  check('service_credentials_rotation_check', 'service_credentials', (rows) =>
    Promise.resolve({ rotated_at: rows.now }),
  ),
  check('service_credentials_revocation_check', 'service_credentials', { state: 'revoked', revoked_at: null }),
  version('service_credentials'),
];

export const deviceGrants: ConstraintCase[] = [
  unique('device_grants_pkey', 'device_grants', (first) => ({ id: first.id })),
  unique('device_grants_device_code_digest_unique', 'device_grants', (first) => ({
    device_code_digest_encoded: first.device_code_digest_encoded,
  })),
  unique('device_grants_user_code_digest_unique', 'device_grants', (first) => ({
    user_code_digest_encoded: first.user_code_digest_encoded,
  })),
  foreign('device_grants_user_id_foreign', 'device_grants', (rows) => rows.grantBinding({ user_id: uuidV7() })),
  foreign('device_grants_organization_id_foreign', 'device_grants', (rows) =>
    rows.grantBinding({ organization_id: uuidV7() }),
  ),
  foreign('device_grants_membership_id_foreign', 'device_grants', (rows) =>
    rows.grantBinding({ membership_id: uuidV7() }),
  ),
  foreign('device_grants_authorized_by_user_id_foreign', 'device_grants', (rows) =>
    rows.grantBinding({ authorized_by_user_id: uuidV7() }),
  ),
  ...keyedDigest('device_grants', 'device_code_digest'),
  ...keyedDigest('device_grants', 'user_code_digest'),
  check('device_grants_client_id_check', 'device_grants', { client_id: 'tessera cli' }),
  check('device_grants_client_name_check', 'device_grants', { client_name: '' }),
  check('device_grants_requested_capabilities_check', 'device_grants', {
    requested_capabilities: ['identity.profile', null],
  }),
  check('device_grants_approved_capabilities_check', 'device_grants', (rows) =>
    rows.grantBinding({ approved_capabilities: ['identity'] }),
  ),
  check('device_grants_approved_subset_check', 'device_grants', (rows) =>
    rows.grantBinding({ approved_capabilities: ['audit.read'] }),
  ),
  outsider('device_grants', 'state', 'approved'),
  check('device_grants_interval_seconds_check', 'device_grants', { interval_seconds: 4 }),
  check('device_grants_poll_count_check', 'device_grants', { poll_count: -1 }),
  check('device_grants_membership_version_check', 'device_grants', (rows) =>
    rows.grantBinding({ membership_version: -1 }),
  ),
  check('device_grants_binding_check', 'device_grants', (rows) => Promise.resolve({ authorized_at: rows.now })),
  check('device_grants_binding_state_check', 'device_grants', { state: 'authorized' }),
  check('device_grants_expiry_check', 'device_grants', (rows) => Promise.resolve({ expires_at: rows.now })),
  version('device_grants'),
  foreign('device_grants_inspected_by_session_id_foreign', 'device_grants', (rows) =>
    Promise.resolve({ inspected_by_session_id: uuidV7(), inspected_at: rows.now }),
  ),
  check('device_grants_inspection_check', 'device_grants', (rows) => Promise.resolve({ inspected_at: rows.now })),
];

export const deviceGrantDigestReservations: ConstraintCase[] = [
  unique('device_grant_digest_reservations_pkey', 'device_grant_digest_reservations', (first) => ({
    digest_encoded: first.digest_encoded,
    kind: 'user',
  })),
  unique('device_grant_digest_reservations_grant_id_kind_unique', 'device_grant_digest_reservations', (first) => ({
    grant_id: first.grant_id,
  })),
  foreign('device_grant_digest_reservations_grant_id_foreign', 'device_grant_digest_reservations', {
    grant_id: uuidV7(),
  }),
  ...keyedDigest('device_grant_digest_reservations', 'digest'),
  outsider('device_grant_digest_reservations', 'kind', 'refresh'),
];

export const deviceTokenFamilies: ConstraintCase[] = [
  unique('device_token_families_pkey', 'device_token_families', (first) => ({ id: first.id })),
  unique('device_token_families_device_grant_id_unique', 'device_token_families', (first) => ({
    device_grant_id: first.device_grant_id,
  })),
  foreign('device_token_families_device_grant_id_foreign', 'device_token_families', { device_grant_id: uuidV7() }),
  foreign('device_token_families_user_id_foreign', 'device_token_families', { user_id: uuidV7() }),
  foreign('device_token_families_organization_id_foreign', 'device_token_families', { organization_id: uuidV7() }),
  foreign('device_token_families_membership_id_foreign', 'device_token_families', { membership_id: uuidV7() }),
  check('device_token_families_membership_version_check', 'device_token_families', { membership_version: -1 }),
  check('device_token_families_client_id_check', 'device_token_families', { client_id: '' }),
  check('device_token_families_capabilities_check', 'device_token_families', {
    capabilities: Array.from({ length: 65 }, (_, i) => `app.scope_${i}`),
  }),
  outsider('device_token_families', 'state', 'rotated'),
  check('device_token_families_revocation_check', 'device_token_families', { state: 'revoked' }),
  check('device_token_families_revoked_reason_check', 'device_token_families', (rows) =>
    Promise.resolve({ state: 'revoked', revoked_at: rows.now, revoked_reason: '' }),
  ),
  check('device_token_families_expiry_check', 'device_token_families', (rows) =>
    Promise.resolve({ expires_at: rows.now }),
  ),
  version('device_token_families'),
];

export const deviceAccessTokens: ConstraintCase[] = [
  unique('device_access_tokens_pkey', 'device_access_tokens', (first) => ({
    id: first.id,
    family_id: first.family_id,
    public_selector: uuidV7(),
  })),
  unique('device_access_tokens_public_selector_unique', 'device_access_tokens', (first) => ({
    family_id: first.family_id,
    public_selector: first.public_selector,
  })),
  unique('device_access_tokens_token_digest_unique', 'device_access_tokens', (first) => ({
    family_id: first.family_id,
    token_digest_encoded: first.token_digest_encoded,
  })),
  foreign('device_access_tokens_family_id_foreign', 'device_access_tokens', { family_id: uuidV7() }),
  check('device_access_tokens_public_selector_check', 'device_access_tokens', { public_selector: 'dat_1' }),
  ...keyedDigest('device_access_tokens', 'token_digest'),
  outsider('device_access_tokens', 'state', 'rotated'),
  check('device_access_tokens_expiry_check', 'device_access_tokens', (rows) =>
    Promise.resolve({ expires_at: rows.now }),
  ),
  version('device_access_tokens'),
];

export const deviceRefreshTokens: ConstraintCase[] = [
  unique('device_refresh_tokens_pkey', 'device_refresh_tokens', (first) => ({
    id: first.id,
    public_selector: uuidV7(),
    rotation_counter: 1,
  })),
  unique('device_refresh_tokens_public_selector_unique', 'device_refresh_tokens', (first) => ({
    public_selector: first.public_selector,
  })),
  unique('device_refresh_tokens_token_digest_unique', 'device_refresh_tokens', (first) => ({
    token_digest_encoded: first.token_digest_encoded,
  })),
  unique('device_refresh_tokens_family_id_rotation_counter_unique', 'device_refresh_tokens', (first) => ({
    family_id: first.family_id,
  })),
  foreign('device_refresh_tokens_family_id_foreign', 'device_refresh_tokens', { family_id: uuidV7() }),
  foreign('device_refresh_tokens_rotated_to_id_foreign', 'device_refresh_tokens', (rows) =>
    Promise.resolve({ state: 'rotated', rotated_to_id: uuidV7(), consumed_at: rows.now }),
  ),
  check('device_refresh_tokens_public_selector_check', 'device_refresh_tokens', { public_selector: 'drt_1' }),
  ...keyedDigest('device_refresh_tokens', 'token_digest'),
  outsider('device_refresh_tokens', 'state', 'consumed'),
  check('device_refresh_tokens_rotation_counter_check', 'device_refresh_tokens', { rotation_counter: -1 }),
  check('device_refresh_tokens_rotation_check', 'device_refresh_tokens', { state: 'rotated' }),
  check('device_refresh_tokens_expiry_check', 'device_refresh_tokens', (rows) =>
    Promise.resolve({ expires_at: rows.now }),
  ),
  version('device_refresh_tokens'),
  check('device_refresh_tokens_retry_check', 'device_refresh_tokens', (rows) =>
    Promise.resolve({ retry_until: rows.now }),
  ),
  rotatedParent('device_refresh_tokens_retry_sealed_successor_check', '23514', (access) => ({
    retry_sealed_successor: Buffer.alloc(0),
    retry_access_token_id: access,
  })),
  rotatedParent('device_refresh_tokens_retry_access_token_id_foreign', '23503', () => ({
    retry_sealed_successor: Buffer.alloc(32),
    retry_access_token_id: uuidV7(),
  })),
];

export const deviceTokenCredentialReservations: ConstraintCase[] = [
  unique('device_token_credential_reservations_pkey', 'device_token_credential_reservations', (first) => ({
    token_id: first.token_id,
    public_selector: uuidV7(),
  })),
  unique(
    'device_token_credential_reservations_public_selector_unique',
    'device_token_credential_reservations',
    (first) => ({ kind: 'refresh', public_selector: first.public_selector }),
  ),
  unique('device_token_credential_reservations_digest_unique', 'device_token_credential_reservations', (first) => ({
    kind: 'refresh',
    digest_encoded: first.digest_encoded,
  })),
  outsider('device_token_credential_reservations', 'kind', 'id_token'),
  check('device_token_credential_reservations_public_selector_check', 'device_token_credential_reservations', {
    public_selector: 'not-a-uuid',
  }),
  ...keyedDigest('device_token_credential_reservations', 'digest'),
];

/**
 * A rotated parent refresh token keeping a sealed successor (retry window), valid but for the
 * retry columns `retry` gives (called with the id of an access token of the same family).
 */
function rotatedParent(constraint: string, code: ViolationCode, retry: (accessTokenId: string) => Row): ConstraintCase {
  return {
    constraint,
    code,
    arrange: async (rows) => {
      const successor = await rows.any('device_refresh_tokens');
      const access = await rows.any('device_access_tokens', { family_id: successor.family_id });
      return { ...successor, access_id: access.id };
    },
    violate: (rows, arranged) =>
      rows.any('device_refresh_tokens', {
        family_id: arranged.family_id,
        rotation_counter: 1,
        state: 'rotated',
        rotated_to_id: arranged.id,
        consumed_at: rows.now,
        retry_until: rows.at(30_000),
        ...retry(String(arranged.access_id)),
      }),
  };
}
