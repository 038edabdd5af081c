import type {
  AuthenticatorTransport,
  ChallengeRecord,
  CredentialRecord,
  InvitationRecord,
  MembershipRecord,
  OrganizationRecord,
  RecoveryCodeRecord,
  SessionRecord,
  StoredDigest,
  UserRecord,
} from '@tessera/identity';
import { abort, type Row } from './identity-store.gateway.js';

/* Raw rows of tessera_identity (snake_case, as the explicit column lists give them) → the port's records. */

/** A text column. */
export function text(row: Row, column: string): string {
  return String(row[column]);
}

/** A nullable text column (`null` when absent). */
export function optionalText(row: Row, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : String(value);
}

/** An integer column. */
export function integer(row: Row, column: string): number {
  return Number(row[column]);
}

// MikroORM's PostgreSQL connection hands `timestamptz` back as PostgreSQL text
// (`2031-05-01 10:45:00.123+00`), whose parsing by `Date` is not specified: parse it exactly.
const TIMESTAMPTZ =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)$/;

/** A `timestamptz` column as a `Date` (driver `Date` or PostgreSQL text). */
export function instant(row: Row, column: string): Date {
  const value = row[column];
  if (value instanceof Date) return value;
  const m = TIMESTAMPTZ.exec(String(value)) ?? abort('internal');
  const milliseconds = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, milliseconds);
  const offsetSeconds =
    m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (+m[10]! * 3600 + +(m[11] ?? 0) * 60 + +(m[12] ?? 0));
  return new Date(utc - offsetSeconds * 1000);
}

/** A nullable `timestamptz` column. */
export function optionalInstant(row: Row, column: string): Date | null {
  return row[column] === null || row[column] === undefined ? null : instant(row, column);
}

/** A `bytea` column: a driver Buffer, or its hex text form (`\x…`). */
export function bytes(row: Row, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof Uint8Array) return new Uint8Array(value);
  const hex = /^\\x((?:[0-9a-f]{2})*)$/i.exec(String(value)) ?? abort('internal');
  return new Uint8Array(Buffer.from(hex[1]!, 'hex'));
}

/** A `text[]` column: a driver array, or its literal form (`{usb,internal}`; the values never need quoting). */
export function textArray(row: Row, column: string): string[] {
  const value = row[column];
  if (Array.isArray(value)) return value.map(String);
  const literal = /^\{(.*)\}$/.exec(String(value)) ?? abort('internal');
  return literal[1] === '' ? [] : literal[1]!.split(',');
}

function flag(row: Row, column: string): boolean {
  const value = row[column];
  return typeof value === 'boolean' ? value : abort('internal');
}

/** The `<prefix>_algorithm` / `_encoded` / `_key_version` columns of a stored digest. */
export function digest(row: Row, prefix: string): StoredDigest {
  return {
    algorithm: text(row, `${prefix}_algorithm`) as StoredDigest['algorithm'],
    encoded: text(row, `${prefix}_encoded`),
    keyVersion: optionalText(row, `${prefix}_key_version`),
  };
}

/** A copy of the `<prefix>…` columns of a joined row without their prefix. */
export function unprefix(row: Row, prefix: string): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

/** A user row; `prefix` reads joined columns selected as `<prefix><column>` (e.g. `u_id`). */
export function userFromRow(row: Row, prefix = ''): UserRecord {
  return {
    id: text(row, `${prefix}id`),
    primaryEmail: optionalText(row, `${prefix}primary_email`),
    displayName: text(row, `${prefix}display_name`),
    state: text(row, `${prefix}state`) as UserRecord['state'],
    sessionEpoch: integer(row, `${prefix}session_epoch`),
    version: integer(row, `${prefix}version`),
    createdAt: instant(row, `${prefix}created_at`),
    updatedAt: instant(row, `${prefix}updated_at`),
  };
}

export function sessionFromRow(row: Row): SessionRecord {
  const federationOrganizationId = optionalText(row, 'federation_organization_id');
  return {
    id: text(row, 'id'),
    familyId: text(row, 'family_id'),
    userId: text(row, 'user_id'),
    tokenDigest: digest(row, 'token_digest'),
    csrfDigest: digest(row, 'csrf_digest'),
    state: text(row, 'state') as SessionRecord['state'],
    assurance: text(row, 'assurance') as SessionRecord['assurance'],
    authenticationMethod: text(row, 'authentication_method') as SessionRecord['authenticationMethod'],
    label: optionalText(row, 'label'),
    platform: optionalText(row, 'platform'),
    userSessionEpoch: integer(row, 'user_session_epoch'),
    rotationCounter: integer(row, 'rotation_counter'),
    rotatedToId: optionalText(row, 'rotated_to_id'),
    authenticatedAt: instant(row, 'authenticated_at'),
    lastUsedAt: instant(row, 'last_used_at'),
    idleExpiresAt: instant(row, 'idle_expires_at'),
    absoluteExpiresAt: instant(row, 'absolute_expires_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
    revokedReason: optionalText(row, 'revoked_reason'),
    federation:
      federationOrganizationId === null
        ? null
        : {
            organizationId: federationOrganizationId,
            providerKey: text(row, 'federation_provider_key'),
            providerSessionEpoch: integer(row, 'federation_provider_session_epoch'),
            externalIdentityId: text(row, 'external_identity_id'),
          },
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
  };
}

export function organizationFromRow(row: Row): OrganizationRecord {
  return {
    id: text(row, 'id'),
    name: text(row, 'name'),
    slug: text(row, 'slug'),
    state: text(row, 'state') as OrganizationRecord['state'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    deletedAt: optionalInstant(row, 'deleted_at'),
  };
}

export function membershipFromRow(row: Row): MembershipRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    userId: text(row, 'user_id'),
    role: text(row, 'role') as MembershipRecord['role'],
    state: text(row, 'state') as MembershipRecord['state'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    removedAt: optionalInstant(row, 'removed_at'),
  };
}

export function invitationFromRow(row: Row): InvitationRecord {
  return {
    id: text(row, 'id'),
    organizationId: text(row, 'organization_id'),
    email: text(row, 'email'),
    role: text(row, 'role') as InvitationRecord['role'],
    state: text(row, 'state') as InvitationRecord['state'],
    tokenDigest: digest(row, 'token_digest'),
    invitedByUserId: optionalText(row, 'invited_by_user_id'),
    acceptedByUserId: optionalText(row, 'accepted_by_user_id'),
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    expiresAt: instant(row, 'expires_at'),
    acceptedAt: optionalInstant(row, 'accepted_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
  };
}

export function credentialFromRow(row: Row): CredentialRecord {
  return {
    id: text(row, 'id'),
    userId: text(row, 'user_id'),
    webAuthnId: text(row, 'web_authn_id'),
    name: text(row, 'name'),
    publicKey: bytes(row, 'public_key'),
    signCount: integer(row, 'sign_count'),
    backupEligible: flag(row, 'backup_eligible'),
    backedUp: flag(row, 'backed_up'),
    transports: textArray(row, 'transports') as AuthenticatorTransport[],
    state: text(row, 'state') as CredentialRecord['state'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    lastUsedAt: optionalInstant(row, 'last_used_at'),
    revokedAt: optionalInstant(row, 'revoked_at'),
  };
}

export function challengeFromRow(row: Row): ChallengeRecord {
  return {
    id: text(row, 'id'),
    purpose: text(row, 'purpose') as ChallengeRecord['purpose'],
    state: text(row, 'state') as ChallengeRecord['state'],
    challengeDigest: digest(row, 'challenge_digest'),
    bindingDigest: optionalText(row, 'binding_digest'),
    payloadDigest: optionalText(row, 'payload_digest'),
    userBindingDigest: optionalText(row, 'user_binding_digest'),
    userId: optionalText(row, 'user_id'),
    organizationId: optionalText(row, 'organization_id'),
    expiresAt: instant(row, 'expires_at'),
    activatedAt: optionalInstant(row, 'activated_at'),
    failureReason: optionalText(row, 'failure_reason'),
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
  };
}

export function recoveryCodeFromRow(row: Row): RecoveryCodeRecord {
  return {
    id: text(row, 'id'),
    userId: text(row, 'user_id'),
    generation: integer(row, 'generation'),
    publicSelector: optionalText(row, 'public_selector'),
    secretDigest: digest(row, 'secret_digest'),
    state: text(row, 'state') as RecoveryCodeRecord['state'],
    version: integer(row, 'version'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instant(row, 'updated_at'),
    consumedAt: optionalInstant(row, 'consumed_at'),
  };
}
