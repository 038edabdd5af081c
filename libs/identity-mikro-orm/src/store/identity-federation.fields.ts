/*
 * Every column of the federation tables the store reads whole rows of, in the schema's column
 * order (new columns of later migrations at the end, as the database appends them).
 */

/** The columns of `federation_provider_controls`. */
export const FEDERATION_PROVIDER_CONTROL_FIELDS = [
  'organization_id',
  'provider_id',
  'kind',
  'storage_key',
  'state',
  'session_epoch',
  'disabled_at',
  'disabled_reason',
  'created_at',
  'updated_at',
  'version',
] as const;

/** The columns of `federation_transactions` (`initiator_session_id` added by the federation migration). */
export const FEDERATION_TRANSACTION_FIELDS = [
  'selector_digest',
  'organization_id',
  'provider_id',
  'kind',
  'storage_key',
  'provider_session_epoch',
  'provider_version',
  'pkce_verifier_ciphertext',
  'request_id_ciphertext',
  'nonce_digest',
  'expires_at',
  'created_at',
  'initiator_session_id',
] as const;

/** The columns of `external_identities`. */
export const EXTERNAL_IDENTITY_FIELDS = [
  'id',
  'user_id',
  'organization_id',
  'provider',
  'subject',
  'state',
  'created_at',
  'updated_at',
  'version',
] as const;

/** The columns of `federation_provider_registrations`. */
export const FEDERATION_PROVIDER_REGISTRATION_FIELDS = [
  'organization_id',
  'provider_id',
  'protocol',
  'display_name',
  'jit',
  'storage_key',
  'issuer',
  'client_id',
  'client_secret_ciphertext',
  'idp_entity_id',
  'sso_url',
  'idp_certificates_pem',
  'signature_policy',
  'created_at',
  'updated_at',
  'version',
] as const;
