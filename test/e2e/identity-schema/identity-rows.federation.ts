/** Row builders of the federation and SCIM tables: replay receipts, provider controls, transactions, SCIM. */
import { randomBytes } from 'node:crypto';
import { MachineAccessRows } from './identity-rows.machine-access.js';
import { b64, MINUTE, storageKey, token, uuidV7, type Row } from './identity-rows.values.js';

/** Column overrides turning the default (OIDC) registration row into a valid SAML one. */
export function samlRegistration(over: Row = {}): Row {
  return {
    protocol: 'saml',
    storage_key: storageKey('saml'),
    issuer: null,
    client_id: null,
    idp_entity_id: 'https://idp.example.test/metadata',
    sso_url: 'https://idp.example.test/sso',
    idp_certificates_pem: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
    signature_policy: 'assertion',
    ...over,
  };
}

/** Builders of the tables OIDC/SAML sign-in and SCIM provisioning write. */
export class FederationRows extends MachineAccessRows {
  externalReplayReceipts(over: Row = {}): Promise<Row> {
    return this.insert('external_replay_receipts', {
      id: uuidV7(),
      provider: storageKey(),
      assertion_digest: b64(),
      expires_at: this.at(60 * MINUTE),
      created_at: this.now,
      ...over,
    });
  }

  async federationProviderControls(over: Row = {}): Promise<Row> {
    const kind = (over.kind as 'oidc' | 'saml' | undefined) ?? 'oidc';
    return this.insert('federation_provider_controls', {
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_id: `idp-${token()}`,
      kind,
      storage_key: storageKey(kind),
      state: 'enabled',
      session_epoch: 0,
      disabled_at: null,
      disabled_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** An OIDC transaction. */
  async federationTransactions(over: Row = {}): Promise<Row> {
    return this.insert('federation_transactions', {
      selector_digest: b64(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_id: 'idp',
      kind: 'oidc',
      storage_key: storageKey('oidc'),
      provider_session_epoch: 0,
      provider_version: 0,
      pkce_verifier_ciphertext: randomBytes(60),
      request_id_ciphertext: null,
      nonce_digest: b64(),
      expires_at: this.at(5 * MINUTE),
      created_at: this.now,
      ...over,
    });
  }

  /** An OIDC registration (no client secret); {@link samlRegistration} gives the SAML columns. */
  async federationProviderRegistrations(over: Row = {}): Promise<Row> {
    return this.insert('federation_provider_registrations', {
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_id: `idp-${token()}`,
      protocol: 'oidc',
      display_name: 'Example IdP',
      jit: false,
      storage_key: storageKey('oidc'),
      issuer: 'https://idp.example.test',
      client_id: 'tessera',
      client_secret_ciphertext: null,
      idp_entity_id: null,
      sso_url: null,
      idp_certificates_pem: [],
      signature_policy: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  async scimOperations(over: Row = {}): Promise<Row> {
    return this.insert('scim_operations', await this.scimReceipt(over));
  }

  async scimBatchOperations(over: Row = {}): Promise<Row> {
    return this.insert('scim_batch_operations', { ...(await this.scimReceipt(over)), mutation_count: 1, ...over });
  }

  private async scimReceipt(over: Row): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    return {
      operation_id: uuidV7(),
      organization_id: organizationId,
      provider: `okta:${organizationId}`,
      request_method: 'POST',
      request_path: '/scim/v2/Users',
      request_precondition: null,
      request_digest: b64(),
      result_status: 201,
      result_resource_type: 'user',
      result_resource_id: uuidV7(),
      result_version: 1,
      committed_at: this.now,
      ...over,
    };
  }

  async scimGroups(over: Row = {}): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    return this.insert('scim_groups', {
      id: uuidV7(),
      organization_id: organizationId,
      provider: `okta:${organizationId}`,
      external_id: null,
      display_name: `Editors ${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }
}
