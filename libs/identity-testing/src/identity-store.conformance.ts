import { afterAll, beforeAll, describe } from '@jest/globals';
import { adminRecoveryCases } from './conformance/admin-recovery.cases.js';
import { auditStreamCases } from './conformance/audit-stream.cases.js';
import { authenticationCases } from './conformance/authentication.cases.js';
import { bootstrapCases } from './conformance/bootstrap.cases.js';
import { ceremonyCases } from './conformance/ceremony.cases.js';
import { ConformanceWorld, type IdentityStoreConformanceOptions } from './conformance/conformance.world.js';
import { credentialCases } from './conformance/credential.cases.js';
import { deviceGrantCases } from './conformance/device-grant.cases.js';
import { deviceTokenCases } from './conformance/device-token.cases.js';
import { environmentCases } from './conformance/environment.cases.js';
import { federationLinkCases } from './conformance/federation-link.cases.js';
import { federationProviderCases } from './conformance/federation-provider.cases.js';
import { federationRegistrationCases } from './conformance/federation-registration.cases.js';
import { federationStandingCases } from './conformance/federation-standing.cases.js';
import { federationTransactionCases } from './conformance/federation-transaction.cases.js';
import { invitationCases } from './conformance/invitation.cases.js';
import { invitationAcceptanceCases } from './conformance/invitation-acceptance.cases.js';
import { maintenanceCases } from './conformance/maintenance.cases.js';
import { organizationCases } from './conformance/organization.cases.js';
import { ownerRuleCases } from './conformance/owner-rule.cases.js';
import { rateLimitCases } from './conformance/rate-limit.cases.js';
import { readCases } from './conformance/reads.cases.js';
import { recoveryCases } from './conformance/recovery.cases.js';
import { scimBatchCases } from './conformance/scim-batch.cases.js';
import { scimGroupCases } from './conformance/scim-group.cases.js';
import { scimConnectionCases } from './conformance/scim-connection.cases.js';
import { scimEffectCases } from './conformance/scim-effects.cases.js';
import { serviceIdentityCases } from './conformance/service-identity.cases.js';
import { sessionEpochCases } from './conformance/session-epoch.cases.js';
import { sessionRotationCases } from './conformance/session-rotation.cases.js';
import { sessionTouchCases } from './conformance/session-touch.cases.js';

/**
 * Defines the `IdentityStore` conformance suite (identity-model §11.1) as Jest `describe`/`it`
 * blocks: the environment marker gate and bootstrap each on a database of their own, then
 * SESSION_IDLE_TOUCH, CONCURRENT_RETRY_SEMANTICS, rotation, SESSION_EPOCH_AND_REVOCATION,
 * INVITATION_SINGLE_USE, LAST_OWNER_PROTECTION, CHALLENGE_SINGLE_CONSUMPTION, CREDENTIAL_UNIQUENESS,
 * FEDERATED_FIRST_PASSKEY_SINGLE, passkey sign-in and step-up, RECOVERY_REUSE_AND_GENERATION,
 * recovery enrollment, ADMINISTRATIVE_RECOVERY_ACTIVATION, SERVICE_CREDENTIAL_TRANSITIONS, device grants (one claim
 * under 50 concurrent exchanges, the device part of CONCURRENT_RETRY_SEMANTICS),
 * DEVICE_TOKEN_REPLAY_AND_FAMILY_REVOCATION and the refresh retry window, reads, federated session
 * standing, FEDERATION_PROVIDER_LIFECYCLE, FEDERATION_LINK_CONFLICTS_AND_REPLAY_RECEIPTS,
 * FEDERATION_JIT_ATOMICITY, federation transactions (one consumer of 20) and provider registrations,
 * SCIM connections, SCIM batches (idempotent receipts, CAS, tenant isolation) and provisioning effects,
 * audit append and RATE_LIMIT_SHARED_COUNTER on one shared, provisioned database. Race cases fire `concurrency` commands at once with `Promise.all`.
 *
 * @example
 * runIdentityStoreConformance({
 *   name: 'MikroOrmIdentityStore',
 *   createStore: async () => {
 *     const testDb = await createTestDatabase();
 *     const db = await openDatabase({ url: testDb.url, entities: [...identityEntities], migrations: { list: [...identityMigrations], schema: IDENTITY_SCHEMA, tableName: IDENTITY_MIGRATIONS_TABLE } });
 *     return { store: new MikroOrmIdentityStore(db.orm), em: db.orm.em, close: async () => { await db.close(); await testDb.close(); } };
 *   },
 *   createRateLimiter: (harness) => new PostgresRateLimiter(harness.em),
 * });
 */
export function runIdentityStoreConformance(options: IdentityStoreConformanceOptions): void {
  describe(`IdentityStore conformance: ${options.name}`, () => {
    environmentCases(options);
    bootstrapCases(options);

    describe('on a provisioned store', () => {
      const world = new ConformanceWorld(options);
      beforeAll(() => world.open());
      afterAll(() => world.close());

      sessionTouchCases(world);
      sessionRotationCases(world);
      sessionEpochCases(world);
      invitationCases(world);
      invitationAcceptanceCases(world);
      auditStreamCases(world);
      organizationCases(world);
      ownerRuleCases(world);
      ceremonyCases(world);
      credentialCases(world);
      authenticationCases(world);
      recoveryCases(world);
      adminRecoveryCases(world);
      serviceIdentityCases(world);
      deviceGrantCases(world);
      deviceTokenCases(world);
      readCases(world);
      federationStandingCases(world);
      federationProviderCases(world);
      federationLinkCases(world);
      federationTransactionCases(world);
      federationRegistrationCases(world);
      scimConnectionCases(world);
      scimBatchCases(world);
      scimGroupCases(world);
      scimEffectCases(world);
      rateLimitCases(world);
      maintenanceCases(world);
    });
  });
}
