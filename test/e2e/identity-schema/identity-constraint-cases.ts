import { b64, storageKey, uuidV7, type IdentityRows, type IdentityTable, type Row } from './identity-rows.fixture.js';

/** SQLSTATE of the violation a case expects. */
export type ViolationCode = '23505' | '23514' | '23503';

/** One constraint and a write that violates exactly it. */
export interface ConstraintCase {
  readonly constraint: string;
  readonly code: ViolationCode;
  /** Rows that must be accepted first (e.g. the row a duplicate collides with). */
  readonly arrange?: (rows: IdentityRows) => Promise<Row>;
  /** The write that must be rejected. */
  readonly violate: (rows: IdentityRows, arranged: Row) => Promise<unknown>;
}

type Overrides = Row | ((rows: IdentityRows) => Promise<Row>);

const resolve = async (rows: IdentityRows, over: Overrides): Promise<Row> =>
  typeof over === 'function' ? over(rows) : over;

/** A CHECK: the default row of `table` with `over` applied. */
function check(constraint: string, table: IdentityTable, over: Overrides): ConstraintCase {
  return { constraint, code: '23514', violate: async (rows) => rows.any(table, await resolve(rows, over)) };
}

/** A FOREIGN KEY: the default row of `table` with `over` (pointing at a missing parent). */
function foreign(constraint: string, table: IdentityTable, over: Overrides): ConstraintCase {
  return { constraint, code: '23503', violate: async (rows) => rows.any(table, await resolve(rows, over)) };
}

/** A UNIQUE / PRIMARY KEY: a first row, then a second one repeating `same(first)`. */
function unique(
  constraint: string,
  table: IdentityTable,
  same: (first: Row) => Row,
  first: Overrides = {},
): ConstraintCase {
  return {
    constraint,
    code: '23505',
    arrange: async (rows) => rows.any(table, await resolve(rows, first)),
    violate: (rows, arranged) => rows.any(table, same(arranged)),
  };
}

/** `<table>_version_check`: a negative version (or 0 for SCIM groups, which start at 1). */
function version(table: IdentityTable, below = -1): ConstraintCase {
  return check(`${table}_version_check`, table, { version: below });
}

/** `<table>_<column>_check` of an enum-like column: a value outside the list. */
function outsider(table: IdentityTable, column: string, value: string, extra: Row = {}): ConstraintCase {
  return check(`${table}_${column}_check`, table, { [column]: value, ...extra });
}

/** The three CHECKs of a keyed digest triple `<digest>_{algorithm,encoded,key_version}`. */
function keyedDigest(table: IdentityTable, digest: string): ConstraintCase[] {
  return [
    check(`${table}_${digest}_algorithm_check`, table, { [`${digest}_algorithm`]: 'sha256' }),
    check(`${table}_${digest}_encoded_check`, table, { [`${digest}_encoded`]: 'not-a-32-byte-digest' }),
    check(`${table}_${digest}_key_version_check`, table, { [`${digest}_key_version`]: '' }),
  ];
}

const long = (length: number): string => 'x'.repeat(length);

const environment: ConstraintCase[] = [
  unique('environment_pkey', 'environment', () => ({ namespace: 'tessera_test_second' })),
  check('environment_id_check', 'environment', { id: false }),
  outsider('environment', 'environment', 'qa'),
  check('environment_namespace_check', 'environment', { environment: 'test', namespace: 'tessera_prod' }),
];

const bootstrapReceipts: ConstraintCase[] = [
  unique('bootstrap_receipts_pkey', 'bootstrap_receipts', () => ({})),
  unique('bootstrap_receipts_digest_encoded_unique', 'bootstrap_receipts', (first) => ({
    digest_encoded: first.digest_encoded,
  })),
  foreign('bootstrap_receipts_user_id_foreign', 'bootstrap_receipts', { user_id: uuidV7() }),
  foreign('bootstrap_receipts_organization_id_foreign', 'bootstrap_receipts', { organization_id: uuidV7() }),
  check('bootstrap_receipts_id_check', 'bootstrap_receipts', { id: false }),
  outsider('bootstrap_receipts', 'digest_algorithm', 'sha512'),
  check('bootstrap_receipts_digest_encoded_check', 'bootstrap_receipts', { digest_encoded: long(64) }),
];

const schemaMigrations: ConstraintCase[] = [
  unique('schema_migrations_pkey', 'schema_migrations', (first) => ({ module: first.module, version: first.version })),
  check('schema_migrations_module_check', 'schema_migrations', { module: 'Identity' }),
  check('schema_migrations_version_check', 'schema_migrations', { version: '' }),
  check('schema_migrations_checksum_check', 'schema_migrations', { checksum: 'ABC123' }),
];

const users: ConstraintCase[] = [
  unique('users_pkey', 'users', (first) => ({ id: first.id })),
  unique('users_primary_email_lower_unique', 'users', () => ({ primary_email: 'ada@example.TEST' }), {
    primary_email: 'Ada@Example.test',
  }),
  check('users_primary_email_check', 'users', { primary_email: 'no-at-sign' }),
  check('users_display_name_check', 'users', { display_name: '' }),
  outsider('users', 'state', 'archived'),
  check('users_session_epoch_check', 'users', { session_epoch: -1 }),
  version('users'),
];

const organizations: ConstraintCase[] = [
  unique('organizations_pkey', 'organizations', (first) => ({ id: first.id })),
  unique('organizations_slug_unique', 'organizations', (first) => ({ slug: first.slug })),
  check('organizations_name_check', 'organizations', { name: long(201) }),
  check('organizations_slug_check', 'organizations', { slug: 'Acme_Inc' }),
  outsider('organizations', 'state', 'archived'),
  check('organizations_deletion_check', 'organizations', { state: 'deleted', deleted_at: null }),
  version('organizations'),
];

const memberships: ConstraintCase[] = [
  unique('memberships_pkey', 'memberships', (first) => ({ id: first.id })),
  unique('memberships_organization_id_user_id_unique', 'memberships', (first) => ({
    organization_id: first.organization_id,
    user_id: first.user_id,
  })),
  foreign('memberships_organization_id_foreign', 'memberships', { organization_id: uuidV7() }),
  foreign('memberships_user_id_foreign', 'memberships', { user_id: uuidV7() }),
  outsider('memberships', 'role', 'guest'),
  outsider('memberships', 'state', 'left'),
  check('memberships_removal_check', 'memberships', { state: 'removed', removed_at: null }),
  version('memberships'),
];

const externalIdentities: ConstraintCase[] = [
  unique('external_identities_pkey', 'external_identities', (first) => ({ id: first.id })),
  unique('external_identities_provider_subject_unique', 'external_identities', (first) => ({
    provider: first.provider,
    subject: first.subject,
  })),
  foreign('external_identities_user_id_foreign', 'external_identities', { user_id: uuidV7() }),
  foreign('external_identities_organization_id_foreign', 'external_identities', { organization_id: uuidV7() }),
  check('external_identities_provider_check', 'external_identities', { provider: 'github' }),
  check('external_identities_subject_check', 'external_identities', { subject: '' }),
  outsider('external_identities', 'state', 'deleted'),
  version('external_identities'),
];

const sessions: ConstraintCase[] = [
  unique('sessions_pkey', 'sessions', (first) => ({ id: first.id })),
  unique('sessions_token_digest_unique', 'sessions', (first) => ({ token_digest_encoded: first.token_digest_encoded })),
  // Both key versions NULL: the coalesce() in the index makes them collide.
  unique(
    'sessions_csrf_digest_unique',
    'sessions',
    (first) => ({ csrf_digest_encoded: first.csrf_digest_encoded, csrf_digest_key_version: null }),
    { csrf_digest_key_version: null },
  ),
  foreign('sessions_user_id_foreign', 'sessions', { user_id: uuidV7() }),
  foreign('sessions_federation_organization_id_foreign', 'sessions', (rows) =>
    rows.federation({ federation_organization_id: uuidV7() }),
  ),
  foreign('sessions_external_identity_id_foreign', 'sessions', (rows) =>
    rows.federation({ external_identity_id: uuidV7() }),
  ),
  foreign('sessions_rotated_to_id_foreign', 'sessions', { state: 'rotated', rotated_to_id: uuidV7() }),
  ...keyedDigest('sessions', 'token_digest'),
  ...keyedDigest('sessions', 'csrf_digest'),
  outsider('sessions', 'state', 'suspended'),
  outsider('sessions', 'assurance', 'device_token'),
  outsider('sessions', 'authentication_method', 'service_credential'),
  check('sessions_method_assurance_check', 'sessions', { authentication_method: 'bootstrap', assurance: 'passkey' }),
  check('sessions_federation_provenance_check', 'sessions', (rows) => rows.federation({ external_identity_id: null })),
  check('sessions_federation_method_check', 'sessions', (rows) =>
    rows.federation({ authentication_method: 'passkey', assurance: 'passkey' }),
  ),
  check('sessions_federation_provider_key_check', 'sessions', (rows) =>
    rows.federation({ federation_provider_key: 'github' }),
  ),
  check('sessions_federation_provider_session_epoch_check', 'sessions', (rows) =>
    rows.federation({ federation_provider_session_epoch: -1 }),
  ),
  check('sessions_user_session_epoch_check', 'sessions', { user_session_epoch: -1 }),
  check('sessions_rotation_counter_check', 'sessions', { rotation_counter: -1 }),
  check('sessions_rotation_check', 'sessions', { state: 'rotated', rotated_to_id: null }),
  check('sessions_label_check', 'sessions', { label: '' }),
  check('sessions_platform_check', 'sessions', { platform: long(201) }),
  check('sessions_idle_expiry_check', 'sessions', (rows) =>
    Promise.resolve({ idle_expires_at: rows.at(31 * 86_400_000), absolute_expires_at: rows.at(30 * 86_400_000) }),
  ),
  check('sessions_revoked_reason_check', 'sessions', { state: 'revoked', revoked_reason: long(201) }),
  version('sessions'),
];

const credentials: ConstraintCase[] = [
  unique('credentials_pkey', 'credentials', (first) => ({ id: first.id })),
  unique('credentials_web_authn_id_unique', 'credentials', (first) => ({ web_authn_id: first.web_authn_id })),
  foreign('credentials_user_id_foreign', 'credentials', { user_id: uuidV7() }),
  check('credentials_web_authn_id_check', 'credentials', { web_authn_id: 'has+plus/slash=' }),
  check('credentials_name_check', 'credentials', { name: '' }),
  check('credentials_public_key_check', 'credentials', { public_key: Buffer.alloc(0) }),
  check('credentials_sign_count_check', 'credentials', { sign_count: 4294967296 }),
  check('credentials_backup_state_check', 'credentials', { backup_eligible: false, backed_up: true }),
  check('credentials_transports_check', 'credentials', { transports: ['usb', 'bluetooth'] }),
  outsider('credentials', 'state', 'lost'),
  version('credentials'),
];

const invitations: ConstraintCase[] = [
  unique('invitations_pkey', 'invitations', (first) => ({ id: first.id })),
  unique('invitations_token_digest_unique', 'invitations', (first) => ({
    token_digest_encoded: first.token_digest_encoded,
  })),
  unique(
    'invitations_pending_email_unique',
    'invitations',
    (first) => ({ organization_id: first.organization_id, email: 'bob@EXAMPLE.test' }),
    { email: 'Bob@example.test' },
  ),
  foreign('invitations_organization_id_foreign', 'invitations', { organization_id: uuidV7() }),
  foreign('invitations_invited_by_user_id_foreign', 'invitations', { invited_by_user_id: uuidV7() }),
  foreign('invitations_accepted_by_user_id_foreign', 'invitations', (rows) =>
    Promise.resolve({ state: 'accepted', accepted_at: rows.now, accepted_by_user_id: uuidV7() }),
  ),
  check('invitations_email_check', 'invitations', { email: 'a@' + long(319) }),
  outsider('invitations', 'role', 'guest'),
  outsider('invitations', 'state', 'declined'),
  ...keyedDigest('invitations', 'token_digest'),
  check('invitations_acceptance_check', 'invitations', { state: 'accepted' }),
  check('invitations_revocation_check', 'invitations', { state: 'revoked', revoked_at: null }),
  check('invitations_expiry_check', 'invitations', (rows) => Promise.resolve({ expires_at: rows.now })),
  version('invitations'),
];

const serviceIdentities: ConstraintCase[] = [
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

const serviceCredentials: ConstraintCase[] = [
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

const challenges: ConstraintCase[] = [
  unique('challenges_pkey', 'challenges', (first) => ({ id: first.id })),
  unique('challenges_challenge_digest_unique', 'challenges', (first) => ({
    challenge_digest_encoded: first.challenge_digest_encoded,
  })),
  foreign('challenges_user_id_foreign', 'challenges', { purpose: 'step_up', user_id: uuidV7() }),
  foreign('challenges_organization_id_foreign', 'challenges', { organization_id: uuidV7() }),
  outsider('challenges', 'purpose', 'login'),
  outsider('challenges', 'state', 'cancelled'),
  outsider('challenges', 'challenge_digest_algorithm', 'md5'),
  check('challenges_challenge_digest_encoded_check', 'challenges', { challenge_digest_encoded: 'short' }),
  check('challenges_challenge_digest_key_check', 'challenges', { challenge_digest_key_version: '1' }),
  check('challenges_binding_digest_check', 'challenges', { binding_digest: 'short' }),
  check('challenges_payload_digest_check', 'challenges', { payload_digest: 'short' }),
  {
    constraint: 'challenges_user_binding_digest_check',
    code: '23514',
    violate: (rows) => rows.ticket({ user_binding_digest: 'short' }),
  },
  check('challenges_ticket_fields_check', 'challenges', (rows) => Promise.resolve({ activated_at: rows.now })),
  {
    constraint: 'challenges_ticket_binding_check',
    code: '23514',
    violate: (rows) => rows.ticket({ user_binding_digest: null }),
  },
  check('challenges_failure_reason_check', 'challenges', { state: 'failed', failure_reason: '' }),
  check('challenges_expiry_check', 'challenges', (rows) => Promise.resolve({ expires_at: rows.now })),
  version('challenges'),
];

const recoveryCodes: ConstraintCase[] = [
  unique('recovery_codes_pkey', 'recovery_codes', (first) => ({ id: first.id })),
  unique('recovery_codes_public_selector_unique', 'recovery_codes', (first) => ({
    public_selector: first.public_selector,
  })),
  unique('recovery_codes_secret_digest_unique', 'recovery_codes', (first) => ({
    secret_digest_encoded: first.secret_digest_encoded,
  })),
  foreign('recovery_codes_user_id_foreign', 'recovery_codes', { user_id: uuidV7() }),
  check('recovery_codes_generation_check', 'recovery_codes', { generation: -1 }),
  check('recovery_codes_public_selector_check', 'recovery_codes', { public_selector: b64(9) }),
  ...keyedDigest('recovery_codes', 'secret_digest'),
  outsider('recovery_codes', 'state', 'used'),
  check('recovery_codes_consumption_check', 'recovery_codes', { state: 'consumed', consumed_at: null }),
  version('recovery_codes'),
];

const deviceGrants: ConstraintCase[] = [
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
];

const deviceGrantDigestReservations: ConstraintCase[] = [
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

const deviceTokenFamilies: ConstraintCase[] = [
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

const deviceAccessTokens: ConstraintCase[] = [
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

const deviceRefreshTokens: ConstraintCase[] = [
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
];

const deviceTokenCredentialReservations: ConstraintCase[] = [
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

const externalReplayReceipts: ConstraintCase[] = [
  unique('external_replay_receipts_pkey', 'external_replay_receipts', (first) => ({ id: first.id })),
  unique('external_replay_receipts_provider_assertion_digest_unique', 'external_replay_receipts', (first) => ({
    provider: first.provider,
    assertion_digest: first.assertion_digest,
  })),
  check('external_replay_receipts_provider_check', 'external_replay_receipts', { provider: 'oidc.short' }),
  check('external_replay_receipts_assertion_digest_check', 'external_replay_receipts', { assertion_digest: '' }),
  check('external_replay_receipts_expiry_check', 'external_replay_receipts', (rows) =>
    Promise.resolve({ expires_at: rows.at(-1) }),
  ),
];

const federationProviderControls: ConstraintCase[] = [
  unique('federation_provider_controls_pkey', 'federation_provider_controls', (first) => ({
    organization_id: first.organization_id,
    provider_id: first.provider_id,
  })),
  unique('federation_provider_controls_storage_key_unique', 'federation_provider_controls', (first) => ({
    storage_key: first.storage_key,
  })),
  foreign('federation_provider_controls_organization_id_foreign', 'federation_provider_controls', {
    organization_id: uuidV7(),
  }),
  check('federation_provider_controls_provider_id_check', 'federation_provider_controls', { provider_id: 'Okta' }),
  outsider('federation_provider_controls', 'kind', 'ldap'),
  check('federation_provider_controls_storage_key_check', 'federation_provider_controls', {
    kind: 'saml',
    storage_key: storageKey('oidc'),
  }),
  outsider('federation_provider_controls', 'state', 'paused'),
  check('federation_provider_controls_session_epoch_check', 'federation_provider_controls', { session_epoch: -1 }),
  check('federation_provider_controls_state_metadata_check', 'federation_provider_controls', (rows) =>
    Promise.resolve({ state: 'disabled', disabled_at: rows.at(-1000), disabled_reason: 'incident' }),
  ),
  version('federation_provider_controls'),
];

const federationTransactions: ConstraintCase[] = [
  unique('federation_transactions_pkey', 'federation_transactions', (first) => ({
    selector_digest: first.selector_digest,
  })),
  foreign('federation_transactions_organization_id_foreign', 'federation_transactions', {
    organization_id: uuidV7(),
  }),
  check('federation_transactions_selector_digest_check', 'federation_transactions', { selector_digest: 'short' }),
  check('federation_transactions_provider_id_check', 'federation_transactions', { provider_id: '-idp' }),
  outsider('federation_transactions', 'kind', 'ldap'),
  check('federation_transactions_storage_key_check', 'federation_transactions', { storage_key: storageKey('saml') }),
  check('federation_transactions_provider_session_epoch_check', 'federation_transactions', {
    provider_session_epoch: -1,
  }),
  check('federation_transactions_provider_version_check', 'federation_transactions', { provider_version: -1 }),
  check('federation_transactions_nonce_digest_check', 'federation_transactions', { nonce_digest: 'short' }),
  check('federation_transactions_protocol_check', 'federation_transactions', {
    kind: 'saml',
    storage_key: storageKey('saml'),
  }),
  check('federation_transactions_expiry_check', 'federation_transactions', (rows) =>
    Promise.resolve({ expires_at: rows.now }),
  ),
];

const auditEvents: ConstraintCase[] = [
  unique('audit_events_pkey', 'audit_events', (first) => ({ id: first.id })),
  foreign('audit_events_organization_id_foreign', 'audit_events', { organization_id: uuidV7() }),
  outsider('audit_events', 'actor_type', 'robot'),
  check('audit_events_actor_check', 'audit_events', { actor_type: 'user' }),
  check('audit_events_action_check', 'audit_events', { action: 'Session Revoked' }),
  outsider('audit_events', 'target_type', 'device_token', { target_id: uuidV7() }),
  check('audit_events_target_check', 'audit_events', { target_type: 'session' }),
  check('audit_events_target_id_check', 'audit_events', { target_type: 'session', target_id: '' }),
  outsider('audit_events', 'outcome', 'partial'),
  check('audit_events_reason_code_check', 'audit_events', { outcome: 'denied', reason_code: long(201) }),
  check('audit_events_request_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_trusted_proxy: null })),
  ),
  check('audit_events_request_id_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_id: 'req id with spaces' })),
  ),
  check('audit_events_request_method_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_method: '' })),
  ),
  check('audit_events_request_path_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_path: long(4097) })),
  ),
  check('audit_events_request_user_agent_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_user_agent: 'Mozilla/5.0' })),
  ),
  check('audit_events_request_client_ip_digest_check', 'audit_events', (rows) =>
    Promise.resolve(rows.auditRequest({ request_client_ip_digest: '192.0.2.1' })),
  ),
];

function scimReceipt(table: 'scim_operations' | 'scim_batch_operations'): ConstraintCase[] {
  return [
    unique(`${table}_pkey`, table, (first) => ({ operation_id: first.operation_id })),
    foreign(`${table}_organization_id_foreign`, table, { organization_id: uuidV7() }),
    check(`${table}_provider_check`, table, { provider: '' }),
    outsider(table, 'request_method', 'GET'),
    check(`${table}_request_path_check`, table, { request_path: '' }),
    check(`${table}_request_precondition_check`, table, { request_precondition: '' }),
    check(`${table}_request_digest_check`, table, { request_digest: 'short' }),
    check(`${table}_result_status_check`, table, { result_status: 199 }),
    outsider(table, 'result_resource_type', 'tenant'),
    check(`${table}_result_resource_check`, table, { result_resource_id: null }),
    check(`${table}_result_version_check`, table, { result_version: -1 }),
  ];
}

const scim: ConstraintCase[] = [
  ...scimReceipt('scim_operations'),
  ...scimReceipt('scim_batch_operations'),
  check('scim_batch_operations_mutation_count_check', 'scim_batch_operations', { mutation_count: -1 }),
  unique('scim_groups_pkey', 'scim_groups', (first) => ({ id: first.id })),
  foreign('scim_groups_organization_id_foreign', 'scim_groups', { organization_id: uuidV7() }),
  unique(
    'scim_groups_active_display_name_unique',
    'scim_groups',
    (first) => ({ organization_id: first.organization_id, provider: first.provider, display_name: 'EDITORS' }),
    { display_name: 'Editors' },
  ),
  unique(
    'scim_groups_active_external_id_unique',
    'scim_groups',
    (first) => ({ organization_id: first.organization_id, provider: first.provider, external_id: first.external_id }),
    { external_id: 'okta-group-1' },
  ),
  check('scim_groups_provider_check', 'scim_groups', { provider: '' }),
  check('scim_groups_external_id_check', 'scim_groups', { external_id: '' }),
  check('scim_groups_display_name_check', 'scim_groups', { display_name: '' }),
  outsider('scim_groups', 'state', 'archived'),
  version('scim_groups', 0),
];

const rateLimitBuckets: ConstraintCase[] = [
  unique('rate_limit_buckets_pkey', 'rate_limit_buckets', (first) => ({ bucket_key: first.bucket_key })),
  check('rate_limit_buckets_bucket_key_check', 'rate_limit_buckets', { bucket_key: 'bootstrap:192.0.2.1' }),
  check('rate_limit_buckets_window_seconds_check', 'rate_limit_buckets', { window_seconds: 86401 }),
  check('rate_limit_buckets_count_check', 'rate_limit_buckets', { count: -1 }),
  version('rate_limit_buckets'),
];

/** One case per constraint and unique index of schema `tessera_identity`. */
export const CONSTRAINT_CASES: readonly ConstraintCase[] = [
  ...environment,
  ...bootstrapReceipts,
  ...schemaMigrations,
  ...users,
  ...organizations,
  ...memberships,
  ...externalIdentities,
  ...sessions,
  ...credentials,
  ...invitations,
  ...serviceIdentities,
  ...serviceCredentials,
  ...challenges,
  ...recoveryCodes,
  ...deviceGrants,
  ...deviceGrantDigestReservations,
  ...deviceTokenFamilies,
  ...deviceAccessTokens,
  ...deviceRefreshTokens,
  ...deviceTokenCredentialReservations,
  ...externalReplayReceipts,
  ...federationProviderControls,
  ...federationTransactions,
  ...auditEvents,
  ...scim,
  ...rateLimitBuckets,
];
