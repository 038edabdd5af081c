import { EntitySchema } from '@mikro-orm/core';
import {
  FEDERATION_PROVIDER_KINDS,
  IDENTITY_SCHEMA,
  type FederationProviderKind,
} from '../schema/identity-schema.values.js';
import { SAML_SIGNATURE_POLICIES, type SamlSignaturePolicyValue } from '../schema/identity-federation.values.js';
import {
  booleanColumn,
  byteaColumn,
  check,
  enumColumn,
  IDENTITY_ENTITY_NAMES,
  referenceColumn,
  STORAGE_KEY_PATTERN,
  textArrayColumn,
  textColumn,
  timestampColumn,
  versionColumn,
} from './entity-columns.js';

const TABLE = 'federation_provider_registrations';

/**
 * One row of `tessera_identity.federation_provider_registrations`: a provider an organization
 * registered itself (issue 14). The protocol decides which columns are set.
 *
 * @example
 * const registration = await em.findOne(IdentityFederationProviderRegistrationSchema, { organizationId, providerId });
 */
export interface IdentityFederationProviderRegistrationRow {
  organizationId: string;
  providerId: string;
  protocol: FederationProviderKind;
  /** 1..200 chars. */
  displayName: string;
  jit: boolean;
  /** Immutable; `<protocol>.` + 43 base64url chars; unique; equal to the control's. */
  storageKey: string;
  /** OIDC only. */
  issuer: string | null;
  /** OIDC only. */
  clientId: string | null;
  /** OIDC only, optional: the client secret sealed under the configuration's encryption key. */
  clientSecretCiphertext: Buffer | null;
  /** SAML only. */
  idpEntityId: string | null;
  /** SAML only: the HTTP-Redirect SSO endpoint. */
  ssoUrl: string | null;
  /** SAML: 1..8 PEM certificates; OIDC: empty. */
  idpCertificatesPem: string[];
  /** SAML only. */
  signaturePolicy: SamlSignaturePolicyValue | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * Entity of `tessera_identity.federation_provider_registrations` (PK (organization_id,
 * provider_id), UNIQUE `storage_key`).
 *
 * @example
 * const registrations = await em.find(IdentityFederationProviderRegistrationSchema, { organizationId }, { orderBy: { providerId: 'asc' } });
 */
export const IdentityFederationProviderRegistrationSchema = new EntitySchema<IdentityFederationProviderRegistrationRow>(
  {
    name: IDENTITY_ENTITY_NAMES.federationProviderRegistration,
    tableName: TABLE,
    schema: IDENTITY_SCHEMA,
    properties: {
      organizationId: referenceColumn(
        IDENTITY_ENTITY_NAMES.organization,
        'organization_id',
        `${TABLE}_organization_id_foreign`,
        { primary: true },
      ),
      providerId: textColumn('provider_id', { primary: true }),
      protocol: enumColumn('protocol', FEDERATION_PROVIDER_KINDS),
      displayName: textColumn('display_name'),
      jit: booleanColumn('jit'),
      storageKey: textColumn('storage_key'),
      issuer: textColumn('issuer', { nullable: true }),
      clientId: textColumn('client_id', { nullable: true }),
      clientSecretCiphertext: byteaColumn('client_secret_ciphertext', { nullable: true }),
      idpEntityId: textColumn('idp_entity_id', { nullable: true }),
      ssoUrl: textColumn('sso_url', { nullable: true }),
      idpCertificatesPem: textArrayColumn('idp_certificates_pem'),
      signaturePolicy: enumColumn('signature_policy', SAML_SIGNATURE_POLICIES, { nullable: true }),
      createdAt: timestampColumn('created_at'),
      updatedAt: timestampColumn('updated_at'),
      version: versionColumn(),
    },
    uniques: [{ name: `${TABLE}_storage_key_unique`, properties: ['storageKey'] }],
    checks: [
      check(`${TABLE}_provider_id_check`, "provider_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'"),
      check(`${TABLE}_display_name_check`, 'char_length(display_name) >= 1 and char_length(display_name) <= 200'),
      check(
        `${TABLE}_storage_key_check`,
        `storage_key ~ '${STORAGE_KEY_PATTERN}' and strpos(storage_key, protocol || '.') = 1`,
      ),
      check(`${TABLE}_issuer_check`, 'char_length(issuer) >= 1 and char_length(issuer) <= 2048'),
      check(`${TABLE}_client_id_check`, 'char_length(client_id) >= 1 and char_length(client_id) <= 512'),
      check(
        `${TABLE}_client_secret_check`,
        'octet_length(client_secret_ciphertext) >= 1 and octet_length(client_secret_ciphertext) <= 4096',
      ),
      check(`${TABLE}_idp_entity_id_check`, 'char_length(idp_entity_id) >= 1 and char_length(idp_entity_id) <= 1024'),
      check(`${TABLE}_sso_url_check`, 'char_length(sso_url) >= 1 and char_length(sso_url) <= 2048'),
      check(
        `${TABLE}_idp_certificates_pem_check`,
        'cardinality(idp_certificates_pem) <= 8 and array_position(idp_certificates_pem, null) is null',
      ),
      check(
        `${TABLE}_protocol_columns_check`,
        "(protocol = 'oidc' and issuer is not null and client_id is not null and idp_entity_id is null and sso_url is null and signature_policy is null and cardinality(idp_certificates_pem) = 0) or (protocol = 'saml' and idp_entity_id is not null and sso_url is not null and signature_policy is not null and cardinality(idp_certificates_pem) >= 1 and issuer is null and client_id is null and client_secret_ciphertext is null)",
      ),
      check(`${TABLE}_version_check`, 'version >= 0'),
    ],
  },
);
