/** Constraint cases of the installation and account tables: environment, users, organizations, invitations. */
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
import { uuidV7 } from './identity-rows.fixture.js';

export const environment: ConstraintCase[] = [
  unique('environment_pkey', 'environment', () => ({ namespace: 'tessera_test_second' })),
  check('environment_id_check', 'environment', { id: false }),
  outsider('environment', 'environment', 'qa'),
  check('environment_namespace_check', 'environment', { environment: 'test', namespace: 'tessera_prod' }),
];

export const bootstrapReceipts: ConstraintCase[] = [
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

export const schemaMigrations: ConstraintCase[] = [
  unique('schema_migrations_pkey', 'schema_migrations', (first) => ({ module: first.module, version: first.version })),
  check('schema_migrations_module_check', 'schema_migrations', { module: 'Identity' }),
  check('schema_migrations_version_check', 'schema_migrations', { version: '' }),
  check('schema_migrations_checksum_check', 'schema_migrations', { checksum: 'ABC123' }),
];

export const users: ConstraintCase[] = [
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

export const organizations: ConstraintCase[] = [
  unique('organizations_pkey', 'organizations', (first) => ({ id: first.id })),
  unique('organizations_slug_unique', 'organizations', (first) => ({ slug: first.slug })),
  check('organizations_name_check', 'organizations', { name: long(201) }),
  check('organizations_slug_check', 'organizations', { slug: 'Acme_Inc' }),
  outsider('organizations', 'state', 'archived'),
  check('organizations_deletion_check', 'organizations', { state: 'deleted', deleted_at: null }),
  version('organizations'),
];

export const memberships: ConstraintCase[] = [
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

export const externalIdentities: ConstraintCase[] = [
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

export const invitations: ConstraintCase[] = [
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
