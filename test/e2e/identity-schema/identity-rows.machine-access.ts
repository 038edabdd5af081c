/** Row builders of non-browser access: service identities and credentials, device grants and device tokens. */
import { AuthenticationRows } from './identity-rows.authentication.js';
import { b64, DAY, MINUTE, token, uuidV7, type Row } from './identity-rows.values.js';

/** Builders of the service-identity and device-grant tables. */
export class MachineAccessRows extends AuthenticationRows {
  async serviceIdentities(over: Row = {}): Promise<Row> {
    return this.insert('service_identities', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      name: `ci-${token()}`,
      description: null,
      capabilities: ['content.read', 'package.publish'],
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  async serviceCredentials(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('service_credentials', {
      id,
      service_identity_id: over.service_identity_id ?? (await this.serviceIdentities()).id,
      public_prefix: id,
      secret_digest_algorithm: 'hmac-sha256',
      secret_digest_encoded: b64(),
      secret_digest_key_version: '1',
      capabilities: ['content.read'],
      state: 'active',
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      last_used_at: null,
      rotated_at: null,
      rotated_to_id: null,
      revoked_at: null,
      ...over,
    });
  }

  /** A pending device grant (no binding). */
  deviceGrants(over: Row = {}): Promise<Row> {
    return this.insert('device_grants', {
      id: uuidV7(),
      device_code_digest_algorithm: 'hmac-sha256',
      device_code_digest_encoded: b64(),
      device_code_digest_key_version: '1',
      user_code_digest_algorithm: 'hmac-sha256',
      user_code_digest_encoded: b64(),
      user_code_digest_key_version: '1',
      client_id: 'tessera-cli',
      client_name: 'Tessera CLI',
      requested_capabilities: ['identity.profile', 'organization.read'],
      state: 'pending',
      interval_seconds: 5,
      poll_count: 0,
      last_polled_at: null,
      expires_at: this.at(10 * MINUTE),
      user_id: null,
      organization_id: null,
      membership_id: null,
      membership_version: null,
      authorized_by_user_id: null,
      authorized_at: null,
      approved_capabilities: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** The binding columns of an approval by a fresh member. */
  async grantBinding(over: Row = {}): Promise<Row> {
    const membership = await this.memberships({ role: 'admin' });
    return {
      state: 'authorized',
      user_id: membership.user_id,
      organization_id: membership.organization_id,
      membership_id: membership.id,
      membership_version: 0,
      authorized_by_user_id: membership.user_id,
      authorized_at: this.now,
      approved_capabilities: ['identity.profile'],
      ...over,
    };
  }

  async deviceGrantDigestReservations(over: Row = {}): Promise<Row> {
    return this.insert('device_grant_digest_reservations', {
      digest_algorithm: 'hmac-sha256',
      digest_encoded: b64(),
      digest_key_version: '1',
      grant_id: over.grant_id ?? (await this.deviceGrants()).id,
      kind: 'device',
      created_at: this.now,
      ...over,
    });
  }

  async deviceTokenFamilies(over: Row = {}): Promise<Row> {
    const binding = await this.grantBinding({ state: 'consumed' });
    return this.insert('device_token_families', {
      id: uuidV7(),
      device_grant_id: over.device_grant_id ?? (await this.deviceGrants(binding)).id,
      user_id: binding.user_id,
      organization_id: binding.organization_id,
      membership_id: binding.membership_id,
      membership_version: 0,
      client_id: 'tessera-cli',
      capabilities: ['identity.profile'],
      state: 'active',
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      revoked_reason: null,
      ...over,
    });
  }

  async deviceAccessTokens(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('device_access_tokens', {
      id,
      family_id: over.family_id ?? (await this.deviceTokenFamilies()).id,
      public_selector: id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      state: 'active',
      expires_at: this.at(15 * MINUTE),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  async deviceRefreshTokens(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('device_refresh_tokens', {
      id,
      family_id: over.family_id ?? (await this.deviceTokenFamilies()).id,
      public_selector: id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      state: 'active',
      rotation_counter: 0,
      rotated_to_id: null,
      consumed_at: null,
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  deviceTokenCredentialReservations(over: Row = {}): Promise<Row> {
    const tokenId = (over.token_id as string | undefined) ?? uuidV7();
    return this.insert('device_token_credential_reservations', {
      kind: 'access',
      token_id: tokenId,
      public_selector: tokenId,
      digest_algorithm: 'hmac-sha256',
      digest_encoded: b64(),
      digest_key_version: '1',
      created_at: this.now,
      ...over,
    });
  }
}
