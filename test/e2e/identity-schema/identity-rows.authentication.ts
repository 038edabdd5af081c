/** Row builders of the authentication tables: sessions, passkey credentials, challenges, recovery codes. */
import { randomBytes } from 'node:crypto';
import { AccountRows } from './identity-rows.accounts.js';
import { b64, DAY, MINUTE, uuidV7, type Row } from './identity-rows.values.js';

/** Builders of the tables a user signs in and recovers with. */
export class AuthenticationRows extends AccountRows {
  /** A full (passkey) session. */
  async sessions(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('sessions', {
      id,
      family_id: id,
      user_id: over.user_id ?? (await this.users()).id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      csrf_digest_algorithm: 'hmac-sha256',
      csrf_digest_encoded: b64(),
      csrf_digest_key_version: '1',
      state: 'active',
      assurance: 'passkey',
      authentication_method: 'passkey',
      federation_organization_id: null,
      federation_provider_key: null,
      federation_provider_session_epoch: null,
      external_identity_id: null,
      user_session_epoch: 0,
      rotation_counter: 0,
      rotated_to_id: null,
      label: null,
      platform: null,
      authenticated_at: this.now,
      last_used_at: this.now,
      idle_expires_at: this.at(DAY),
      absolute_expires_at: this.at(30 * DAY),
      revoked_at: null,
      revoked_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** Federation provenance columns of an `oidc` session of a fresh linked user. */
  async federation(over: Row = {}): Promise<Row> {
    const link = await this.externalIdentities();
    return {
      user_id: link.user_id,
      authentication_method: 'oidc',
      assurance: 'session',
      federation_organization_id: link.organization_id,
      federation_provider_key: link.provider,
      federation_provider_session_epoch: 0,
      external_identity_id: link.id,
      ...over,
    };
  }

  async credentials(over: Row = {}): Promise<Row> {
    return this.insert('credentials', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      web_authn_id: b64(),
      name: 'Laptop',
      public_key: randomBytes(77),
      sign_count: 0,
      backup_eligible: true,
      backed_up: false,
      transports: ['internal', 'hybrid'],
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      last_used_at: null,
      revoked_at: null,
      ...over,
    });
  }

  /** A pending WebAuthn authentication ceremony. */
  challenges(over: Row = {}): Promise<Row> {
    return this.insert('challenges', {
      id: uuidV7(),
      purpose: 'webauthn_authentication',
      state: 'pending',
      challenge_digest_algorithm: 'sha256',
      challenge_digest_encoded: b64(),
      challenge_digest_key_version: null,
      binding_digest: b64(),
      payload_digest: b64(),
      user_binding_digest: null,
      user_id: null,
      organization_id: null,
      expires_at: this.at(5 * MINUTE),
      activated_at: null,
      failure_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** An administrative recovery ticket (challenge purpose `account_recovery`). */
  async ticket(over: Row = {}): Promise<Row> {
    return this.challenges({
      purpose: 'account_recovery',
      challenge_digest_algorithm: 'hmac-sha256',
      challenge_digest_key_version: '1',
      binding_digest: null,
      payload_digest: null,
      user_binding_digest: b64(),
      user_id: over.user_id ?? (await this.users()).id,
      expires_at: this.at(15 * MINUTE),
      ...over,
    });
  }

  async recoveryCodes(over: Row = {}): Promise<Row> {
    return this.insert('recovery_codes', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      generation: 0,
      public_selector: b64(8),
      secret_digest_algorithm: 'hmac-sha256',
      secret_digest_encoded: b64(),
      secret_digest_key_version: '1',
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      consumed_at: null,
      ...over,
    });
  }
}
