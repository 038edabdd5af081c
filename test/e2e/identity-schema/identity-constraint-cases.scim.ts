/** Constraint cases of the SCIM provisioning tables of issue 15: connections, rules, tokens, users, emails, group members. */
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
import { SCIM_USER_TEXT_COLUMNS } from '../../../libs/identity-mikro-orm/src/schema/identity-scim.values.js';
import { uuidV7 } from './identity-rows.fixture.js';

export const scimConnections: ConstraintCase[] = [
  unique('scim_connections_pkey', 'scim_connections', (first) => ({ id: first.id })),
  unique('scim_connections_active_provider_name_unique', 'scim_connections', (first) => ({
    organization_id: first.organization_id,
    provider_name: first.provider_name,
  })),
  foreign('scim_connections_organization_id_foreign', 'scim_connections', { organization_id: uuidV7() }),
  check('scim_connections_provider_name_check', 'scim_connections', { provider_name: 'Okta' }),
  outsider('scim_connections', 'state', 'paused'),
  check('scim_connections_revoked_check', 'scim_connections', { state: 'revoked' }),
  version('scim_connections'),
  unique('scim_connection_group_roles_pkey', 'scim_connection_group_roles', (first) => ({
    connection_id: first.connection_id,
    position: first.position,
  })),
  foreign('scim_connection_group_roles_connection_id_foreign', 'scim_connection_group_roles', {
    connection_id: uuidV7(),
  }),
  check('scim_connection_group_roles_position_check', 'scim_connection_group_roles', { position: 100 }),
  outsider('scim_connection_group_roles', 'match_kind', 'id'),
  check('scim_connection_group_roles_match_value_check', 'scim_connection_group_roles', { match_value: '' }),
  outsider('scim_connection_group_roles', 'role', 'owner'),
];

export const scimConnectionTokens: ConstraintCase[] = [
  unique('scim_connection_tokens_pkey', 'scim_connection_tokens', (first) => ({
    id: first.id,
    state: 'revoked',
    revoked_at: first.created_at,
  })),
  unique('scim_connection_tokens_digest_encoded_unique', 'scim_connection_tokens', (first) => ({
    digest_encoded: first.digest_encoded,
  })),
  unique('scim_connection_tokens_active_unique', 'scim_connection_tokens', (first) => ({
    connection_id: first.connection_id,
  })),
  foreign('scim_connection_tokens_connection_id_foreign', 'scim_connection_tokens', { connection_id: uuidV7() }),
  ...keyedDigest('scim_connection_tokens', 'digest'),
  outsider('scim_connection_tokens', 'state', 'expired', { rotated_at: new Date() }),
  check('scim_connection_tokens_rotated_check', 'scim_connection_tokens', { state: 'rotated' }),
  check('scim_connection_tokens_revoked_check', 'scim_connection_tokens', (rows) =>
    Promise.resolve({ state: 'rotated', rotated_at: rows.now, revoked_at: rows.now }),
  ),
  version('scim_connection_tokens'),
];

export const scimUsers: ConstraintCase[] = [
  unique('scim_users_pkey', 'scim_users', (first) => ({ id: first.id, state: 'deleted' })),
  unique(
    'scim_users_active_user_name_unique',
    'scim_users',
    (first) => ({ organization_id: first.organization_id, provider: first.provider, user_name: 'ADA@EXAMPLE.COM' }),
    { user_name: 'ada@example.com' },
  ),
  unique(
    'scim_users_active_external_id_unique',
    'scim_users',
    (first) => ({ organization_id: first.organization_id, provider: first.provider, external_id: first.external_id }),
    { external_id: '00u1' },
  ),
  unique('scim_users_active_user_id_unique', 'scim_users', (first) => ({
    organization_id: first.organization_id,
    user_id: first.user_id,
  })),
  foreign('scim_users_organization_id_foreign', 'scim_users', { organization_id: uuidV7() }),
  foreign('scim_users_user_id_foreign', 'scim_users', { user_id: uuidV7() }),
  check('scim_users_provider_check', 'scim_users', { provider: '' }),
  check('scim_users_user_name_check', 'scim_users', { user_name: long(1025) }),
  check('scim_users_external_id_check', 'scim_users', { external_id: '' }),
  ...SCIM_USER_TEXT_COLUMNS.map((column) => check(`scim_users_${column}_check`, 'scim_users', { [column]: '' })),
  outsider('scim_users', 'state', 'suspended'),
  version('scim_users', 0),
  unique('scim_user_emails_pkey', 'scim_user_emails', (first) => ({
    scim_user_id: first.scim_user_id,
    position: first.position,
    organization_id: first.organization_id,
    provider: first.provider,
  })),
  foreign('scim_user_emails_scim_user_id_foreign', 'scim_user_emails', async (rows) => {
    const organization = await rows.organizations();
    return { scim_user_id: uuidV7(), organization_id: organization.id, provider: `okta:${String(organization.id)}` };
  }),
  foreign('scim_user_emails_organization_id_foreign', 'scim_user_emails', async (rows) => {
    const user = await rows.scimUsers();
    return { scim_user_id: user.id, organization_id: uuidV7(), provider: user.provider };
  }),
  check('scim_user_emails_position_check', 'scim_user_emails', { position: 20 }),
  check('scim_user_emails_provider_check', 'scim_user_emails', async (rows) => {
    const user = await rows.scimUsers();
    return { scim_user_id: user.id, organization_id: user.organization_id, provider: '' };
  }),
  check('scim_user_emails_value_check', 'scim_user_emails', { value: 'ab' }),
  check('scim_user_emails_type_check', 'scim_user_emails', { type: '' }),
  unique('scim_group_members_pkey', 'scim_group_members', (first) => ({
    group_id: first.group_id,
    scim_user_id: first.scim_user_id,
    organization_id: first.organization_id,
  })),
  foreign('scim_group_members_group_id_foreign', 'scim_group_members', { group_id: uuidV7() }),
  foreign('scim_group_members_scim_user_id_foreign', 'scim_group_members', { scim_user_id: uuidV7() }),
  foreign('scim_group_members_organization_id_foreign', 'scim_group_members', async (rows) => {
    const organization = await rows.organizations();
    const group = await rows.scimGroups({ organization_id: organization.id });
    const user = await rows.scimUsers({ organization_id: organization.id });
    return { group_id: group.id, scim_user_id: user.id, organization_id: uuidV7() };
  }),
  check('scim_group_members_provider_check', 'scim_group_members', { provider: '' }),
];
