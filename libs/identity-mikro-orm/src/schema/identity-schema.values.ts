/**
 * The closed value sets of the identity schema (`identity-model.md` §1, §5, §5.11, §8), in the exact
 * order of the migration's CHECK constraints. MikroORM reads a `col = ANY (ARRAY[...])` CHECK back as
 * enum items and compares them position by position, so entities declare these tuples unchanged.
 */

/**
 * PostgreSQL schema holding every identity table.
 *
 * @example
 * migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE }
 */
export const IDENTITY_SCHEMA = 'tessera_identity';

/**
 * Table (inside {@link IDENTITY_SCHEMA}) in which MikroORM's migrator records the applied identity
 * migrations.
 *
 * @default 'mikro_orm_migrations'
 * @example
 * await em.getConnection().execute(`select name from ${IDENTITY_SCHEMA}.${IDENTITY_MIGRATIONS_TABLE}`);
 */
export const IDENTITY_MIGRATIONS_TABLE = 'mikro_orm_migrations';

/**
 * Deployment environments of the environment marker (§9.7).
 *
 * @example
 * IDENTITY_ENVIRONMENTS.includes(value as never); // true for a stored value
 */
export const IDENTITY_ENVIRONMENTS = ['development', 'test', 'staging', 'production'] as const;
/** An {@link IDENTITY_ENVIRONMENTS} value. */
export type IdentityEnvironment = (typeof IDENTITY_ENVIRONMENTS)[number];

/**
 * User states (§5.11).
 *
 * @example
 * USER_STATES.includes(value as never); // true for a stored value
 */
export const USER_STATES = ['pending', 'active', 'suspended', 'deactivated'] as const;
/** A {@link USER_STATES} value. */
export type UserState = (typeof USER_STATES)[number];

/**
 * Passkey states (§5.11).
 *
 * @example
 * CREDENTIAL_STATES.includes(value as never); // true for a stored value
 */
export const CREDENTIAL_STATES = ['active', 'suspended', 'suspected_clone', 'revoked'] as const;
/** A {@link CREDENTIAL_STATES} value. */
export type CredentialState = (typeof CREDENTIAL_STATES)[number];

/**
 * WebAuthn transports; `smart-card` keeps its hyphen everywhere (`identity-http.md` §1).
 *
 * @example
 * WEBAUTHN_TRANSPORTS.includes(value as never); // true for a stored value
 */
export const WEBAUTHN_TRANSPORTS = ['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card'] as const;
/** A {@link WEBAUTHN_TRANSPORTS} value. */
export type WebAuthnTransport = (typeof WEBAUTHN_TRANSPORTS)[number];

/**
 * Session states (§5.1); `expired` is evaluated at resolution and exists as a value only.
 *
 * @example
 * SESSION_STATES.includes(value as never); // true for a stored value
 */
export const SESSION_STATES = ['active', 'rotated', 'revoked', 'expired'] as const;
/** A {@link SESSION_STATES} value. */
export type SessionState = (typeof SESSION_STATES)[number];

/**
 * Assurance levels a session can carry (§1); device and service assurances never create sessions.
 *
 * @example
 * SESSION_ASSURANCES.includes(value as never); // true for a stored value
 */
export const SESSION_ASSURANCES = ['recovery', 'session', 'passkey', 'step_up'] as const;
/** A {@link SESSION_ASSURANCES} value. */
export type SessionAssurance = (typeof SESSION_ASSURANCES)[number];

/**
 * Authentication methods that create sessions (§1).
 *
 * @example
 * SESSION_AUTHENTICATION_METHODS.includes(value as never); // true for a stored value
 */
export const SESSION_AUTHENTICATION_METHODS = [
  'passkey',
  'recovery_code',
  'administrative_recovery',
  'bootstrap',
  'invitation',
  'oidc',
  'saml',
] as const;
/** A {@link SESSION_AUTHENTICATION_METHODS} value. */
export type SessionAuthenticationMethod = (typeof SESSION_AUTHENTICATION_METHODS)[number];

/**
 * Organization states (§5.11); `deleted` is the soft delete.
 *
 * @example
 * ORGANIZATION_STATES.includes(value as never); // true for a stored value
 */
export const ORGANIZATION_STATES = ['active', 'suspended', 'deleted'] as const;
/** An {@link ORGANIZATION_STATES} value. */
export type OrganizationState = (typeof ORGANIZATION_STATES)[number];

/**
 * Organization roles, highest rank first (§6.1).
 *
 * @example
 * MEMBERSHIP_ROLES.includes(value as never); // true for a stored value
 */
export const MEMBERSHIP_ROLES = ['owner', 'admin', 'publisher', 'viewer'] as const;
/** A {@link MEMBERSHIP_ROLES} value. */
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/**
 * Membership states (§5.11).
 *
 * @example
 * MEMBERSHIP_STATES.includes(value as never); // true for a stored value
 */
export const MEMBERSHIP_STATES = ['active', 'suspended', 'removed'] as const;
/** A {@link MEMBERSHIP_STATES} value. */
export type MembershipState = (typeof MEMBERSHIP_STATES)[number];

/**
 * Invitation states (§5.4); `expired` is checked, never written by the services.
 *
 * @example
 * INVITATION_STATES.includes(value as never); // true for a stored value
 */
export const INVITATION_STATES = ['pending', 'accepted', 'revoked', 'expired'] as const;
/** An {@link INVITATION_STATES} value. */
export type InvitationState = (typeof INVITATION_STATES)[number];

/**
 * Service identity states (§5.8).
 *
 * @example
 * SERVICE_IDENTITY_STATES.includes(value as never); // true for a stored value
 */
export const SERVICE_IDENTITY_STATES = ['active', 'suspended', 'revoked'] as const;
/** A {@link SERVICE_IDENTITY_STATES} value. */
export type ServiceIdentityState = (typeof SERVICE_IDENTITY_STATES)[number];

/**
 * Service credential states (§5.8).
 *
 * @example
 * SERVICE_CREDENTIAL_STATES.includes(value as never); // true for a stored value
 */
export const SERVICE_CREDENTIAL_STATES = ['active', 'rotated', 'revoked', 'expired'] as const;
/** A {@link SERVICE_CREDENTIAL_STATES} value. */
export type ServiceCredentialState = (typeof SERVICE_CREDENTIAL_STATES)[number];

/**
 * Challenge purposes (§5.3); `account_recovery` rows are administrative recovery tickets.
 *
 * @example
 * CHALLENGE_PURPOSES.includes(value as never); // true for a stored value
 */
export const CHALLENGE_PURPOSES = [
  'webauthn_registration',
  'webauthn_authentication',
  'step_up',
  'account_recovery',
  'invitation_acceptance',
  'device_authorization',
  'external_identity_link',
  'service_credential_rotation',
] as const;
/** A {@link CHALLENGE_PURPOSES} value. */
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

/**
 * Challenge (ceremony and ticket) states (§5.3).
 *
 * @example
 * CHALLENGE_STATES.includes(value as never); // true for a stored value
 */
export const CHALLENGE_STATES = ['pending', 'consumed', 'failed', 'expired'] as const;
/** A {@link CHALLENGE_STATES} value. */
export type ChallengeState = (typeof CHALLENGE_STATES)[number];

/**
 * Digest algorithms of a challenge: plain SHA-256 for ceremonies, keyed for recovery tickets (§2).
 *
 * @example
 * CHALLENGE_DIGEST_ALGORITHMS.includes(value as never); // true for a stored value
 */
export const CHALLENGE_DIGEST_ALGORITHMS = ['sha256', 'hmac-sha256'] as const;
/** A {@link CHALLENGE_DIGEST_ALGORITHMS} value. */
export type ChallengeDigestAlgorithm = (typeof CHALLENGE_DIGEST_ALGORITHMS)[number];

/**
 * Recovery code states (§5.6).
 *
 * @example
 * RECOVERY_CODE_STATES.includes(value as never); // true for a stored value
 */
export const RECOVERY_CODE_STATES = ['active', 'consumed', 'revoked', 'expired'] as const;
/** A {@link RECOVERY_CODE_STATES} value. */
export type RecoveryCodeState = (typeof RECOVERY_CODE_STATES)[number];

/**
 * Device grant states (§5.5).
 *
 * @example
 * DEVICE_GRANT_STATES.includes(value as never); // true for a stored value
 */
export const DEVICE_GRANT_STATES = ['pending', 'authorized', 'denied', 'consumed', 'expired', 'cancelled'] as const;
/** A {@link DEVICE_GRANT_STATES} value. */
export type DeviceGrantState = (typeof DEVICE_GRANT_STATES)[number];

/**
 * Kinds of device-grant code sharing one digest namespace (§9.5).
 *
 * @example
 * DEVICE_GRANT_CODE_KINDS.includes(value as never); // true for a stored value
 */
export const DEVICE_GRANT_CODE_KINDS = ['device', 'user'] as const;
/** A {@link DEVICE_GRANT_CODE_KINDS} value. */
export type DeviceGrantCodeKind = (typeof DEVICE_GRANT_CODE_KINDS)[number];

/**
 * Device token family states (§5.5).
 *
 * @example
 * DEVICE_TOKEN_FAMILY_STATES.includes(value as never); // true for a stored value
 */
export const DEVICE_TOKEN_FAMILY_STATES = ['active', 'revoked', 'expired'] as const;
/** A {@link DEVICE_TOKEN_FAMILY_STATES} value. */
export type DeviceTokenFamilyState = (typeof DEVICE_TOKEN_FAMILY_STATES)[number];

/**
 * Device access token states: never rotated, only revoked with the family or expired.
 *
 * @example
 * DEVICE_ACCESS_TOKEN_STATES.includes(value as never); // true for a stored value
 */
export const DEVICE_ACCESS_TOKEN_STATES = ['active', 'revoked', 'expired'] as const;
/** A {@link DEVICE_ACCESS_TOKEN_STATES} value. */
export type DeviceAccessTokenState = (typeof DEVICE_ACCESS_TOKEN_STATES)[number];

/**
 * Device refresh token states (§5.5).
 *
 * @example
 * DEVICE_REFRESH_TOKEN_STATES.includes(value as never); // true for a stored value
 */
export const DEVICE_REFRESH_TOKEN_STATES = ['active', 'rotated', 'revoked', 'expired'] as const;
/** A {@link DEVICE_REFRESH_TOKEN_STATES} value. */
export type DeviceRefreshTokenState = (typeof DEVICE_REFRESH_TOKEN_STATES)[number];

/**
 * Kinds of device token sharing one selector and digest namespace (§9.5).
 *
 * @example
 * DEVICE_TOKEN_KINDS.includes(value as never); // true for a stored value
 */
export const DEVICE_TOKEN_KINDS = ['access', 'refresh'] as const;
/** A {@link DEVICE_TOKEN_KINDS} value. */
export type DeviceTokenKind = (typeof DEVICE_TOKEN_KINDS)[number];

/**
 * External identity states (§5.11).
 *
 * @example
 * EXTERNAL_IDENTITY_STATES.includes(value as never); // true for a stored value
 */
export const EXTERNAL_IDENTITY_STATES = ['active', 'suspended', 'unlinked'] as const;
/** An {@link EXTERNAL_IDENTITY_STATES} value. */
export type ExternalIdentityState = (typeof EXTERNAL_IDENTITY_STATES)[number];

/**
 * Federation protocols; the storage key starts with `<kind>.` (§9.5).
 *
 * @example
 * FEDERATION_PROVIDER_KINDS.includes(value as never); // true for a stored value
 */
export const FEDERATION_PROVIDER_KINDS = ['oidc', 'saml'] as const;
/** A {@link FEDERATION_PROVIDER_KINDS} value. */
export type FederationProviderKind = (typeof FEDERATION_PROVIDER_KINDS)[number];

/**
 * Federation provider control states (§5.9).
 *
 * @example
 * FEDERATION_PROVIDER_STATES.includes(value as never); // true for a stored value
 */
export const FEDERATION_PROVIDER_STATES = ['enabled', 'disabled'] as const;
/** A {@link FEDERATION_PROVIDER_STATES} value. */
export type FederationProviderState = (typeof FEDERATION_PROVIDER_STATES)[number];

/**
 * Audit actor types (§8.1).
 *
 * @example
 * AUDIT_ACTOR_TYPES.includes(value as never); // true for a stored value
 */
export const AUDIT_ACTOR_TYPES = ['anonymous', 'user', 'service', 'system'] as const;
/** An {@link AUDIT_ACTOR_TYPES} value. */
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * Audit target types (§8.2).
 *
 * @example
 * AUDIT_TARGET_TYPES.includes(value as never); // true for a stored value
 */
export const AUDIT_TARGET_TYPES = [
  'user',
  'challenge',
  'credential',
  'session',
  'organization',
  'membership',
  'invitation',
  'service_identity',
  'service_credential',
  'device_grant',
  'external_identity',
  'federation_provider',
  'scim_group',
  'scim_connection',
  'scim_user',
] as const;
/** An {@link AUDIT_TARGET_TYPES} value. */
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * Audit outcomes (§8.1).
 *
 * @example
 * AUDIT_OUTCOMES.includes(value as never); // true for a stored value
 */
export const AUDIT_OUTCOMES = ['succeeded', 'denied', 'failed'] as const;
/** An {@link AUDIT_OUTCOMES} value. */
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * HTTP methods of SCIM mutations recorded as idempotent operations (`identity-http.md` §7).
 *
 * @example
 * SCIM_MUTATION_METHODS.includes(value as never); // true for a stored value
 */
export const SCIM_MUTATION_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** A {@link SCIM_MUTATION_METHODS} value. */
export type ScimMutationMethod = (typeof SCIM_MUTATION_METHODS)[number];

/**
 * SCIM resource types an operation can answer with.
 *
 * @example
 * SCIM_RESOURCE_TYPES.includes(value as never); // true for a stored value
 */
export const SCIM_RESOURCE_TYPES = ['user', 'group'] as const;
/** A {@link SCIM_RESOURCE_TYPES} value. */
export type ScimResourceType = (typeof SCIM_RESOURCE_TYPES)[number];

/**
 * SCIM group states (§5.11).
 *
 * @example
 * SCIM_GROUP_STATES.includes(value as never); // true for a stored value
 */
export const SCIM_GROUP_STATES = ['active', 'deleted'] as const;
/** A {@link SCIM_GROUP_STATES} value. */
export type ScimGroupState = (typeof SCIM_GROUP_STATES)[number];

/**
 * Algorithm label of every keyed digest column (`*_digest_algorithm`), as the store port's `StoredDigest` spells it.
 *
 * @example
 * KEYED_DIGEST_ALGORITHMS.includes(value as never); // true for a stored value
 */
export const KEYED_DIGEST_ALGORITHMS = ['hmac-sha256'] as const;
/** A {@link KEYED_DIGEST_ALGORITHMS} value. */
export type KeyedDigestAlgorithm = (typeof KEYED_DIGEST_ALGORITHMS)[number];

/**
 * Algorithm label of the bootstrap receipt digest (§9.5: `digest_algorithm = 'sha256'`).
 *
 * @example
 * BOOTSTRAP_DIGEST_ALGORITHMS.includes(value as never); // true for a stored value
 */
export const BOOTSTRAP_DIGEST_ALGORITHMS = ['sha256'] as const;
/** A {@link BOOTSTRAP_DIGEST_ALGORITHMS} value. */
export type BootstrapDigestAlgorithm = (typeof BOOTSTRAP_DIGEST_ALGORITHMS)[number];
