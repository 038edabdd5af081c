/** Row builders of the SCIM provisioning tables of issue 15: connections, their rules and tokens, users, emails, group members. */
import { FederationRows } from './identity-rows.federation.js';
import { b64, token, uuidV7, type Row } from './identity-rows.values.js';

/** Builders of the organization-managed SCIM connections and the provisioned SCIM users. */
export class ScimRows extends FederationRows {
  async scimConnections(over: Row = {}): Promise<Row> {
    return this.insert('scim_connections', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_name: `okta-${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      token_issued_at: this.now,
      ...over,
    });
  }

  async scimConnectionGroupRoles(over: Row = {}): Promise<Row> {
    return this.insert('scim_connection_group_roles', {
      connection_id: over.connection_id ?? (await this.scimConnections()).id,
      position: 0,
      match_kind: 'display_name',
      match_value: 'Admins',
      role: 'admin',
      ...over,
    });
  }

  async scimConnectionTokens(over: Row = {}): Promise<Row> {
    return this.insert('scim_connection_tokens', {
      id: uuidV7(),
      connection_id: over.connection_id ?? (await this.scimConnections()).id,
      digest_algorithm: 'hmac-sha256',
      digest_encoded: b64(),
      digest_key_version: '1',
      state: 'active',
      created_at: this.now,
      rotated_at: null,
      revoked_at: null,
      ...over,
    });
  }

  async scimUsers(over: Row = {}): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    return this.insert('scim_users', {
      id: uuidV7(),
      organization_id: organizationId,
      provider: `okta:${organizationId}`,
      user_id: over.user_id ?? (await this.users()).id,
      user_name: `user-${token()}@example.com`,
      external_id: null,
      display_name: null,
      active: true,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  async scimUserEmails(over: Row = {}): Promise<Row> {
    const user = over.scim_user_id === undefined ? await this.scimUsers() : undefined;
    return this.insert('scim_user_emails', {
      scim_user_id: user?.id,
      position: 0,
      organization_id: user?.organization_id,
      provider: user?.provider,
      value: `mail-${token()}@example.com`,
      type: 'work',
      is_primary: true,
      ...over,
    });
  }

  async scimGroupMembers(over: Row = {}): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    const provider = `okta:${organizationId}`;
    return this.insert('scim_group_members', {
      group_id: over.group_id ?? (await this.scimGroups({ organization_id: organizationId })).id,
      scim_user_id: over.scim_user_id ?? (await this.scimUsers({ organization_id: organizationId })).id,
      organization_id: organizationId,
      provider,
      added_at: this.now,
      ...over,
    });
  }
}
