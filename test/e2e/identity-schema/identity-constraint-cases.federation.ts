/** Constraint cases of the federation and SCIM tables: replay receipts, provider controls, transactions, SCIM. */
import {
  check,
  foreign,
  outsider,
  unique,
  version,
  type ConstraintCase,
} from './identity-constraint-cases.builders.js';
import { storageKey, uuidV7 } from './identity-rows.fixture.js';
import { samlRegistration } from './identity-rows.federation.js';

export const externalReplayReceipts: ConstraintCase[] = [
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

export const federationProviderControls: ConstraintCase[] = [
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

export const federationTransactions: ConstraintCase[] = [
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
  foreign('federation_transactions_initiator_session_id_foreign', 'federation_transactions', {
    initiator_session_id: uuidV7(),
  }),
];

const REGISTRATIONS = 'federation_provider_registrations';

export const federationProviderRegistrations: ConstraintCase[] = [
  unique(`${REGISTRATIONS}_pkey`, REGISTRATIONS, (first) => ({
    organization_id: first.organization_id,
    provider_id: first.provider_id,
  })),
  unique(`${REGISTRATIONS}_storage_key_unique`, REGISTRATIONS, (first) => ({ storage_key: first.storage_key })),
  foreign(`${REGISTRATIONS}_organization_id_foreign`, REGISTRATIONS, { organization_id: uuidV7() }),
  check(`${REGISTRATIONS}_provider_id_check`, REGISTRATIONS, { provider_id: 'Okta' }),
  outsider(REGISTRATIONS, 'protocol', 'ldap'),
  check(`${REGISTRATIONS}_display_name_check`, REGISTRATIONS, { display_name: '' }),
  check(`${REGISTRATIONS}_storage_key_check`, REGISTRATIONS, { storage_key: storageKey('saml') }),
  check(`${REGISTRATIONS}_issuer_check`, REGISTRATIONS, { issuer: '' }),
  check(`${REGISTRATIONS}_client_id_check`, REGISTRATIONS, { client_id: '' }),
  check(`${REGISTRATIONS}_client_secret_check`, REGISTRATIONS, { client_secret_ciphertext: Buffer.alloc(0) }),
  check(`${REGISTRATIONS}_idp_entity_id_check`, REGISTRATIONS, samlRegistration({ idp_entity_id: '' })),
  check(`${REGISTRATIONS}_sso_url_check`, REGISTRATIONS, samlRegistration({ sso_url: '' })),
  check(
    `${REGISTRATIONS}_idp_certificates_pem_check`,
    REGISTRATIONS,
    samlRegistration({ idp_certificates_pem: Array.from({ length: 9 }, () => 'PEM') }),
  ),
  check(`${REGISTRATIONS}_signature_policy_check`, REGISTRATIONS, samlRegistration({ signature_policy: 'none' })),
  check(`${REGISTRATIONS}_protocol_columns_check`, REGISTRATIONS, { issuer: null }),
  version(REGISTRATIONS),
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

export const scim: ConstraintCase[] = [
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
