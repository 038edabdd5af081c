import type {
  AuditEventInput,
  NewChallenge,
  NewCredential,
  NewInvitation,
  NewMembership,
  NewOrganization,
  NewRecoveryCode,
  NewSession,
  NewUser,
} from '@tessera/identity';
import { abort, type Row } from './identity-store.gateway.js';

/*
 * The port's inputs → the snake_case columns of a new tessera_identity row. New rows start at
 * version 0 with created/updated instants of the command; what the store decides (state, epoch,
 * family, counter, expiry ceilings) is stamped here rather than taken from the caller.
 */

/** Columns of a new active user (epoch 0). */
export function userColumns(user: NewUser, at: Date): Row {
  return {
    id: user.id,
    primary_email: user.primaryEmail,
    display_name: user.displayName,
    state: 'active',
    session_epoch: 0,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** Columns of a new active organization. */
export function organizationColumns(organization: NewOrganization, at: Date): Row {
  const { id, name, slug } = organization;
  return { id, name, slug, state: 'active', created_at: at, updated_at: at, deleted_at: null, version: 0 };
}

/** Columns of a new active membership. */
export function membershipColumns(membership: NewMembership, at: Date): Row {
  return {
    id: membership.id,
    organization_id: membership.organizationId,
    user_id: membership.userId,
    role: membership.role,
    state: 'active',
    created_at: at,
    updated_at: at,
    removed_at: null,
    version: 0,
  };
}

/** Columns of a new pending invitation. */
export function invitationColumns(invitation: NewInvitation, at: Date): Row {
  return {
    id: invitation.id,
    organization_id: invitation.organizationId,
    email: invitation.email,
    role: invitation.role,
    state: 'pending',
    token_digest_algorithm: invitation.tokenDigest.algorithm,
    token_digest_encoded: invitation.tokenDigest.encoded,
    token_digest_key_version: invitation.tokenDigest.keyVersion ?? abort('invalid_transition'),
    invited_by_user_id: invitation.invitedByUserId,
    accepted_by_user_id: null,
    accepted_at: null,
    revoked_at: null,
    expires_at: invitation.expiresAt,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/** What the store, not the caller, decides about a new session row. */
export interface SessionStamp {
  readonly userSessionEpoch: number;
  readonly at: Date;
  /** Rotation: the predecessor's family and counter + 1, and its absolute expiry as a ceiling. */
  readonly predecessor?: {
    readonly familyId: string;
    readonly rotationCounter: number;
    readonly absoluteExpiresAt: Date;
  };
}

/** Columns of a new active session: epoch stamped from the user row, absolute never past the predecessor's. */
export function sessionColumns(session: NewSession, stamp: SessionStamp): Row {
  const previous = stamp.predecessor;
  const absolute = Math.min(session.absoluteExpiresAt.getTime(), previous?.absoluteExpiresAt.getTime() ?? Infinity);
  const federation = session.federation;
  return {
    id: session.id,
    family_id: previous?.familyId ?? session.familyId,
    user_id: session.userId,
    token_digest_algorithm: session.tokenDigest.algorithm,
    token_digest_encoded: session.tokenDigest.encoded,
    token_digest_key_version: session.tokenDigest.keyVersion ?? abort('invalid_transition'),
    csrf_digest_algorithm: session.csrfDigest.algorithm,
    csrf_digest_encoded: session.csrfDigest.encoded,
    csrf_digest_key_version: session.csrfDigest.keyVersion,
    state: 'active',
    assurance: session.assurance,
    authentication_method: session.authenticationMethod,
    federation_organization_id: federation?.organizationId ?? null,
    federation_provider_key: federation?.providerKey ?? null,
    federation_provider_session_epoch: federation?.providerSessionEpoch ?? null,
    external_identity_id: federation?.externalIdentityId ?? null,
    user_session_epoch: stamp.userSessionEpoch,
    rotation_counter: previous === undefined ? session.rotationCounter : previous.rotationCounter + 1,
    rotated_to_id: null,
    label: session.label,
    platform: session.platform,
    authenticated_at: session.authenticatedAt,
    last_used_at: stamp.at,
    idle_expires_at: new Date(Math.min(session.idleExpiresAt.getTime(), absolute)),
    absolute_expires_at: new Date(absolute),
    revoked_at: null,
    revoked_reason: null,
    created_at: stamp.at,
    updated_at: stamp.at,
    version: 0,
  };
}

/** Columns of an audit event: the actor, target and request facts flattened. */
export function auditColumns(event: AuditEventInput): Row {
  const actor = event.actor;
  const request = event.request;
  return {
    id: event.id,
    actor_type: actor.type,
    actor_user_id: actor.type === 'user' ? actor.userId : null,
    actor_service_identity_id: actor.type === 'service' ? actor.serviceIdentityId : null,
    organization_id: event.organizationId,
    action: event.action,
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    outcome: event.outcome,
    reason_code: event.reasonCode,
    request_id: request?.requestId ?? null,
    request_method: request?.method ?? null,
    request_path: request?.path ?? null,
    request_user_agent: request?.userAgent ?? null,
    request_client_ip_digest: request?.clientIpDigest ?? null,
    request_trusted_proxy: request?.trustedProxy ?? null,
    occurred_at: event.occurredAt,
  };
}

/** Columns of a new pending challenge (or inactive administrative recovery ticket). */
export function challengeColumns(challenge: NewChallenge, at: Date): Row {
  return {
    id: challenge.id,
    purpose: challenge.purpose,
    state: 'pending',
    challenge_digest_algorithm: challenge.challengeDigest.algorithm,
    challenge_digest_encoded: challenge.challengeDigest.encoded,
    challenge_digest_key_version: challenge.challengeDigest.keyVersion,
    binding_digest: challenge.bindingDigest,
    payload_digest: challenge.payloadDigest,
    user_binding_digest: challenge.userBindingDigest,
    user_id: challenge.userId,
    organization_id: challenge.organizationId,
    expires_at: challenge.expiresAt,
    activated_at: null,
    failure_reason: null,
    created_at: at,
    updated_at: at,
    version: 0,
  };
}

/**
 * A `text[]` parameter as a PostgreSQL array literal: the query builder expands a JS array
 * binding into a list of values, which a single array column cannot take.
 */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** Columns of a new active passkey (the public key as `bytea`, the transports as `text[]`). */
export function credentialColumns(credential: NewCredential, at: Date): Row {
  return {
    id: credential.id,
    user_id: credential.userId,
    web_authn_id: credential.webAuthnId,
    name: credential.name,
    public_key: Buffer.from(credential.publicKey),
    sign_count: credential.signCount,
    backup_eligible: credential.backupEligible,
    backed_up: credential.backedUp,
    transports: textArrayLiteral(credential.transports),
    state: 'active',
    created_at: at,
    updated_at: at,
    last_used_at: null,
    revoked_at: null,
    version: 0,
  };
}

/** Columns of a new active recovery code of `generation`. */
export function recoveryCodeColumns(code: NewRecoveryCode, userId: string, generation: number, at: Date): Row {
  return {
    id: code.id,
    user_id: userId,
    generation,
    public_selector: code.publicSelector ?? null,
    secret_digest_algorithm: code.secretDigest.algorithm,
    secret_digest_encoded: code.secretDigest.encoded,
    secret_digest_key_version: code.secretDigest.keyVersion ?? abort('invalid_transition'),
    state: 'active',
    created_at: at,
    updated_at: at,
    consumed_at: null,
    version: 0,
  };
}
