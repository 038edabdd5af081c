import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { SessionFederation } from '@tessera/identity';
import { testUuidV7 } from '../identity-test.rows.js';
import type { IdentityTestRows } from '../identity-test.seed.js';
import type { ConformanceWorld } from './conformance.world.js';

/**
 * Seeds an enabled OIDC provider control of `organizationId` and a linked external identity of
 * `userId`; returns the provenance a federated session of that user carries.
 */
export async function seedFederation(
  rows: IdentityTestRows,
  organizationId: string,
  userId: string,
  at: Date,
  over: { sessionEpoch?: number } = {},
): Promise<SessionFederation> {
  const providerKey = `oidc.${randomBytes(32).toString('base64url')}`;
  await rows.insert('federation_provider_controls', {
    organization_id: organizationId,
    provider_id: `idp-${randomBytes(4).toString('hex')}`,
    kind: 'oidc',
    storage_key: providerKey,
    state: 'enabled',
    session_epoch: over.sessionEpoch ?? 0,
    disabled_at: null,
    disabled_reason: null,
    created_at: at,
    updated_at: at,
    version: 0,
  });
  const externalIdentityId = testUuidV7(at);
  await rows.insert('external_identities', {
    id: externalIdentityId,
    user_id: userId,
    organization_id: organizationId,
    provider: providerKey,
    subject: `subject-${randomBytes(6).toString('hex')}`,
    state: 'active',
    created_at: at,
    updated_at: at,
    version: 0,
  });
  return { organizationId, providerKey, providerSessionEpoch: over.sessionEpoch ?? 0, externalIdentityId };
}

/** The standing of a federated session's provenance (identity-http §2.1), read as stored. */
export function federationStandingCases(world: ConformanceWorld): void {
  describe('federated session standing', () => {
    async function federatedUser() {
      const at = world.tick();
      const organizationId = await world.rows.organization({ at });
      const userId = await world.rows.user({ at });
      const membershipId = await world.rows.membership(organizationId, userId, { at });
      const federation = await seedFederation(world.rows, organizationId, userId, at, { sessionEpoch: 4 });
      return { organizationId, userId, membershipId, federation };
    }

    it('reads the enabled provider at its epoch, the active tenant and the active membership', async () => {
      const { userId, federation } = await federatedUser();
      expect(await world.store.findFederatedSessionStanding(federation, userId)).toEqual({
        provider: { state: 'enabled', sessionEpoch: 4 },
        organizationState: 'active',
        membershipState: 'active',
      });
    });

    it('sees a disabled provider and a moved provider epoch', async () => {
      const { userId, federation, organizationId } = await federatedUser();
      const at = world.tick();
      await world.rows.sql(
        `update tessera_identity.federation_provider_controls
            set state = 'disabled', disabled_at = ?, updated_at = ?, disabled_reason = 'incident', session_epoch = 5
          where organization_id = ? and storage_key = ?`,
        [at, at, organizationId, federation.providerKey],
      );
      const standing = await world.store.findFederatedSessionStanding(federation, userId);
      expect(standing.provider).toEqual({ state: 'disabled', sessionEpoch: 5 });
    });

    it('sees a suspended tenant and a removed membership', async () => {
      const { userId, federation, organizationId, membershipId } = await federatedUser();
      const at = world.tick();
      await world.rows.sql(`update tessera_identity.organizations set state = 'suspended' where id = ?`, [
        organizationId,
      ]);
      await world.rows.sql(`update tessera_identity.memberships set state = 'removed', removed_at = ? where id = ?`, [
        at,
        membershipId,
      ]);
      expect(await world.store.findFederatedSessionStanding(federation, userId)).toMatchObject({
        organizationState: 'suspended',
        membershipState: 'removed',
      });
    });

    it("answers no provider for another tenant's provider key and no membership for a stranger", async () => {
      const { federation } = await federatedUser();
      const other = await federatedUser();
      const stranger = await world.rows.user();
      expect(
        await world.store.findFederatedSessionStanding(
          { ...federation, organizationId: other.organizationId },
          stranger,
        ),
      ).toEqual({ provider: null, organizationState: 'active', membershipState: null });
    });

    it('answers nothing for ids that are not UUIDs', async () => {
      const { federation, userId } = await federatedUser();
      expect(
        await world.store.findFederatedSessionStanding({ ...federation, organizationId: 'not-a-uuid' }, userId),
      ).toEqual({ provider: null, organizationState: null, membershipState: null });
    });
  });
}
