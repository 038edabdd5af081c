import type {
  ExternalIdentityRecord,
  FederationProviderControlRecord,
  FederationRegistrationRecord,
  FederationTransactionRecord,
  NewFederationRegistration,
} from '@tessera/identity';
import { abort, type Row } from './identity-store.gateway.js';
import { textArrayLiteral } from './identity-row.columns.js';
import { bytes, instant, integer, optionalInstant, optionalText, text } from './identity-row.mappers.js';

/* Rows of the federation tables ↔ the port's records. */

/** A nullable `bytea` column as a Buffer. */
function optionalBuffer(row: Row, column: string): Buffer | null {
  return row[column] === null || row[column] === undefined ? null : Buffer.from(bytes(row, column));
}

function flag(row: Row, column: string): boolean {
  const value = row[column];
  return typeof value === 'boolean' ? value : abort('internal');
}

/**
 * A one-dimensional `text[]` column whose elements may need quoting (PEM certificates carry
 * spaces and newlines): a driver array, or PostgreSQL's literal form (`{"a b",c}`).
 */
export function quotedTextArray(row: Row, column: string): string[] {
  const value = row[column];
  if (Array.isArray(value)) return value.map(String);
  const literal = /^\{([\s\S]*)\}$/.exec(String(value)) ?? abort('internal');
  const body = literal[1]!;
  const items: string[] = [];
  let index = 0;
  while (index < body.length) {
    let item = '';
    if (body[index] === '"') {
      index++;
      while (index < body.length && body[index] !== '"') {
        if (body[index] === '\\') index++;
        item += body[index] ?? '';
        index++;
      }
      index++;
    } else {
      while (index < body.length && body[index] !== ',') item += body[index++];
      if (item === 'NULL') abort('internal');
    }
    items.push(item);
    if (body[index] === ',') index++;
  }
  return items;
}

/** A provider control row. */
export function controlFromRow(row: Row): FederationProviderControlRecord {
  return {
    organizationId: text(row, 'organization_id'),
    providerId: text(row, 'provider_id'),
    kind: text(row, 'kind') as FederationProviderControlRecord['kind'],
    storageKey: text(row, 'storage_key'),
    state: text(row, 'state') as FederationProviderControlRecord['state'],
    sessionEpoch: integer(row, 'session_epoch'),
    disabledAt: optionalInstant(row, 'disabled_at'),
    disabledReason: optionalText(row, 'disabled_reason'),
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
  };
}

/** A federation link row. */
export function externalIdentityFromRow(row: Row): ExternalIdentityRecord {
  return {
    id: text(row, 'id'),
    userId: text(row, 'user_id'),
    organizationId: text(row, 'organization_id'),
    provider: text(row, 'provider'),
    subject: text(row, 'subject'),
    state: text(row, 'state') as ExternalIdentityRecord['state'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
  };
}

/** A federation transaction row, its lease rebuilt from the lease columns. */
export function transactionFromRow(row: Row): FederationTransactionRecord {
  return {
    selectorDigest: text(row, 'selector_digest'),
    lease: {
      organizationId: text(row, 'organization_id'),
      kind: text(row, 'kind') as FederationTransactionRecord['lease']['kind'],
      providerId: text(row, 'provider_id'),
      storageKey: text(row, 'storage_key'),
      sessionEpoch: integer(row, 'provider_session_epoch'),
      version: integer(row, 'provider_version'),
    },
    pkceVerifierCiphertext: optionalBuffer(row, 'pkce_verifier_ciphertext'),
    requestIdCiphertext: optionalBuffer(row, 'request_id_ciphertext'),
    nonceDigest: optionalText(row, 'nonce_digest'),
    initiatorSessionId: optionalText(row, 'initiator_session_id'),
    expiresAt: instant(row, 'expires_at'),
    createdAt: instant(row, 'created_at'),
  };
}

/** A provider registration row. */
export function registrationFromRow(row: Row): FederationRegistrationRecord {
  return {
    organizationId: text(row, 'organization_id'),
    providerId: text(row, 'provider_id'),
    protocol: text(row, 'protocol') as FederationRegistrationRecord['protocol'],
    displayName: text(row, 'display_name'),
    jit: flag(row, 'jit'),
    storageKey: text(row, 'storage_key'),
    issuer: optionalText(row, 'issuer'),
    clientId: optionalText(row, 'client_id'),
    clientSecretCiphertext: optionalBuffer(row, 'client_secret_ciphertext'),
    idpEntityId: optionalText(row, 'idp_entity_id'),
    ssoUrl: optionalText(row, 'sso_url'),
    idpCertificatesPem: quotedTextArray(row, 'idp_certificates_pem'),
    signaturePolicy: optionalText(row, 'signature_policy') as FederationRegistrationRecord['signaturePolicy'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
  };
}

/** Columns of a new transaction: the lease flattened into its columns. */
export function transactionColumns(transaction: FederationTransactionRecord): Row {
  const { lease } = transaction;
  return {
    selector_digest: transaction.selectorDigest,
    organization_id: lease.organizationId,
    provider_id: lease.providerId,
    kind: lease.kind,
    storage_key: lease.storageKey,
    provider_session_epoch: lease.sessionEpoch,
    provider_version: lease.version,
    pkce_verifier_ciphertext: transaction.pkceVerifierCiphertext,
    request_id_ciphertext: transaction.requestIdCiphertext,
    nonce_digest: transaction.nonceDigest,
    expires_at: transaction.expiresAt,
    created_at: transaction.createdAt,
    initiator_session_id: transaction.initiatorSessionId,
  };
}

/** Columns of a new provider control: enabled v0 epoch 0, or (a disable before any start) disabled v0 epoch 1. */
export function controlColumns(
  control: { organizationId: string; providerId: string; kind: string; storageKey: string },
  state: 'enabled' | 'disabled',
  reason: string | null,
  at: Date,
): Row {
  const disabled = state === 'disabled';
  return {
    organization_id: control.organizationId,
    provider_id: control.providerId,
    kind: control.kind,
    storage_key: control.storageKey,
    state,
    session_epoch: disabled ? 1 : 0,
    disabled_at: disabled ? at : null,
    disabled_reason: disabled ? reason : null,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** Columns of a new link (active, version 0). */
export function externalIdentityColumns(
  link: { id: string; userId: string; organizationId: string; provider: string; subject: string },
  at: Date,
): Row {
  return {
    id: link.id,
    user_id: link.userId,
    organization_id: link.organizationId,
    provider: link.provider,
    subject: link.subject,
    state: 'active',
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** Columns of a new registration (version 0). */
export function registrationColumns(registration: NewFederationRegistration, at: Date): Row {
  return {
    organization_id: registration.organizationId,
    provider_id: registration.providerId,
    protocol: registration.protocol,
    display_name: registration.displayName,
    jit: registration.jit,
    storage_key: registration.storageKey,
    issuer: registration.issuer,
    client_id: registration.clientId,
    client_secret_ciphertext: registration.clientSecretCiphertext,
    idp_entity_id: registration.idpEntityId,
    sso_url: registration.ssoUrl,
    idp_certificates_pem: textArrayLiteral(registration.idpCertificatesPem),
    signature_policy: registration.signaturePolicy,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}
