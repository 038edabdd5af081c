/** Constraint cases of the authentication tables: sessions, passkey credentials, challenges, recovery codes. */
import {
  check,
  foreign,
  keyedDigest,
  long,
  outsider,
  unique,
  version,
  type ConstraintCase,
} from './identity-constraint-cases.builders.js';
import { b64, uuidV7 } from './identity-rows.fixture.js';

export const sessions: ConstraintCase[] = [
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

export const credentials: ConstraintCase[] = [
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

export const challenges: ConstraintCase[] = [
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

export const recoveryCodes: ConstraintCase[] = [
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
