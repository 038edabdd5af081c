import { IdentityAuditEventSchema } from './audit-events.entity.js';
import { IdentityChallengeSchema } from './challenges.entity.js';
import { IdentityCredentialSchema } from './credentials.entity.js';
import { IdentityDeviceGrantDigestReservationSchema, IdentityDeviceGrantSchema } from './device-grants.entity.js';
import {
  IdentityDeviceAccessTokenSchema,
  IdentityDeviceRefreshTokenSchema,
  IdentityDeviceTokenCredentialReservationSchema,
  IdentityDeviceTokenFamilySchema,
} from './device-tokens.entity.js';
import { IdentityBootstrapReceiptSchema, IdentityEnvironmentSchema } from './environment.entity.js';
import { IdentityExternalIdentitySchema, IdentityExternalReplayReceiptSchema } from './external-identities.entity.js';
import {
  IdentityFederationProviderControlSchema,
  IdentityFederationTransactionSchema,
} from './federation-providers.entity.js';
import { IdentityFederationProviderRegistrationSchema } from './federation-registrations.entity.js';
import { IdentityInvitationSchema } from './invitations.entity.js';
import { IdentityMembershipSchema } from './memberships.entity.js';
import { IdentityOrganizationSchema } from './organizations.entity.js';
import { IdentityRateLimitBucketSchema } from './rate-limit-buckets.entity.js';
import { IdentityRecoveryCodeSchema } from './recovery-codes.entity.js';
import { IdentitySchemaMigrationSchema } from './schema-migrations.entity.js';
import {
  IdentityScimBatchOperationSchema,
  IdentityScimGroupSchema,
  IdentityScimOperationSchema,
} from './scim.entity.js';
import {
  IdentityScimConnectionGroupRoleSchema,
  IdentityScimConnectionSchema,
  IdentityScimConnectionTokenSchema,
} from './scim-connection.entity.js';
import {
  IdentityScimGroupMemberSchema,
  IdentityScimUserEmailSchema,
  IdentityScimUserSchema,
} from './scim-user.entity.js';
import { IdentityServiceCredentialSchema, IdentityServiceIdentitySchema } from './service-identities.entity.js';
import { IdentitySessionSchema } from './sessions.entity.js';
import { IdentityUserSchema } from './users.entity.js';

/**
 * Every entity of schema `tessera_identity` (one per table of `identity-model.md` §9.5), for the
 * ORM's `entities` next to the application's own.
 *
 * @example
 * await openDatabase({ entities: [...identityEntities, ...appEntities], migrations: { list: [...identityMigrations], schema: 'tessera_identity' } });
 */
export const identityEntities = [
  IdentityEnvironmentSchema,
  IdentityBootstrapReceiptSchema,
  IdentitySchemaMigrationSchema,
  IdentityUserSchema,
  IdentityCredentialSchema,
  IdentitySessionSchema,
  IdentityOrganizationSchema,
  IdentityMembershipSchema,
  IdentityInvitationSchema,
  IdentityServiceIdentitySchema,
  IdentityServiceCredentialSchema,
  IdentityChallengeSchema,
  IdentityRecoveryCodeSchema,
  IdentityDeviceGrantSchema,
  IdentityDeviceGrantDigestReservationSchema,
  IdentityDeviceTokenFamilySchema,
  IdentityDeviceAccessTokenSchema,
  IdentityDeviceRefreshTokenSchema,
  IdentityDeviceTokenCredentialReservationSchema,
  IdentityExternalIdentitySchema,
  IdentityExternalReplayReceiptSchema,
  IdentityFederationProviderControlSchema,
  IdentityFederationTransactionSchema,
  IdentityFederationProviderRegistrationSchema,
  IdentityAuditEventSchema,
  IdentityScimOperationSchema,
  IdentityScimBatchOperationSchema,
  IdentityScimGroupSchema,
  IdentityScimConnectionSchema,
  IdentityScimConnectionGroupRoleSchema,
  IdentityScimConnectionTokenSchema,
  IdentityScimUserSchema,
  IdentityScimUserEmailSchema,
  IdentityScimGroupMemberSchema,
  IdentityRateLimitBucketSchema,
] as const;
