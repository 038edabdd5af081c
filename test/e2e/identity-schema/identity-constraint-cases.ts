/** Entry point of the constraint table: every case of `tessera_identity`, gathered from the per-family modules. */
import {
  bootstrapReceipts,
  environment,
  externalIdentities,
  invitations,
  memberships,
  organizations,
  schemaMigrations,
  users,
} from './identity-constraint-cases.accounts.js';
import { challenges, credentials, recoveryCodes, sessions } from './identity-constraint-cases.authentication.js';
import type { ConstraintCase } from './identity-constraint-cases.builders.js';
import {
  externalReplayReceipts,
  federationProviderControls,
  federationProviderRegistrations,
  federationTransactions,
  scim,
} from './identity-constraint-cases.federation.js';
import {
  deviceAccessTokens,
  deviceGrantDigestReservations,
  deviceGrants,
  deviceRefreshTokens,
  deviceTokenCredentialReservations,
  deviceTokenFamilies,
  serviceCredentials,
  serviceIdentities,
} from './identity-constraint-cases.machine-access.js';
import { auditEvents, rateLimitBuckets } from './identity-constraint-cases.operations.js';
import { scimConnections, scimConnectionTokens, scimUsers } from './identity-constraint-cases.scim.js';

export type { ConstraintCase, ViolationCode } from './identity-constraint-cases.builders.js';

/** One case per constraint and unique index of schema `tessera_identity`. */
export const CONSTRAINT_CASES: readonly ConstraintCase[] = [
  ...environment,
  ...bootstrapReceipts,
  ...schemaMigrations,
  ...users,
  ...organizations,
  ...memberships,
  ...externalIdentities,
  ...sessions,
  ...credentials,
  ...invitations,
  ...serviceIdentities,
  ...serviceCredentials,
  ...challenges,
  ...recoveryCodes,
  ...deviceGrants,
  ...deviceGrantDigestReservations,
  ...deviceTokenFamilies,
  ...deviceAccessTokens,
  ...deviceRefreshTokens,
  ...deviceTokenCredentialReservations,
  ...externalReplayReceipts,
  ...federationProviderControls,
  ...federationTransactions,
  ...federationProviderRegistrations,
  ...auditEvents,
  ...scim,
  ...scimConnections,
  ...scimConnectionTokens,
  ...scimUsers,
  ...rateLimitBuckets,
];
