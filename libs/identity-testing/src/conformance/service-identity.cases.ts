import { describe, expect, it } from '@jest/globals';
import type { NewServiceCredential, NewServiceIdentity, ServiceIdentityRecord } from '@tessera/identity';
import { randomBytes } from 'node:crypto';
import { testDigest, testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';

const DAY = 86_400_000;
const SCOPES = ['content.read', 'package.publish'];

/** SERVICE_CREDENTIAL_TRANSITIONS (identity-model §5.8, §11.1) and the service-identity reads. */
export function serviceIdentityCases(world: ConformanceWorld): void {
  const newIdentity = (over: Partial<NewServiceIdentity> = {}): NewServiceIdentity => ({
    id: testUuidV7(world.clock.now()),
    organizationId: world.organizationId,
    name: `ci-${randomBytes(5).toString('hex')}`,
    description: null,
    capabilities: SCOPES,
    ...over,
  });
  const newCredential = (
    serviceIdentityId: string,
    over: Partial<NewServiceCredential> = {},
  ): NewServiceCredential => ({
    id: testUuidV7(world.clock.now()),
    serviceIdentityId,
    secretDigest: testDigest(),
    capabilities: SCOPES,
    expiresAt: new Date(world.clock.now().getTime() + 30 * DAY),
    ...over,
  });
  const audit = (action: string, id: string) =>
    world.audit(action, { type: 'system' }, { type: action.split('.')[0]!, id });
  const created = async (over: Partial<NewServiceIdentity> = {}) => {
    const at = world.tick();
    const identity = newIdentity(over);
    return unwrap(
      await world.store.createServiceIdentity({
        identity,
        credential: newCredential(identity.id),
        at,
        audits: [audit('service_identity.created', identity.id)],
      }),
    );
  };
  const rotate = (identity: ServiceIdentityRecord, credentialId: string, at = world.tick()) =>
    world.store.rotateServiceCredential({
      serviceIdentityId: identity.id,
      credentialId,
      replacement: { id: testUuidV7(at), secretDigest: testDigest(), expiresAt: new Date(at.getTime() + DAY) },
      at,
      audit: audit('service_credential.rotated', credentialId),
    });
  const revoke = (identity: ServiceIdentityRecord, credentialId: string) =>
    world.store.revokeServiceCredential({
      serviceIdentityId: identity.id,
      credentialId,
      at: world.tick(),
      audit: audit('service_credential.revoked', credentialId),
    });

  describe('SERVICE_CREDENTIAL_TRANSITIONS', () => {
    it('creates an identity with its first credential atomically; the reads find both and the grant joins the organization', async () => {
      const { identity, credential } = await created({ description: 'Deploys packages' });
      expect(identity).toMatchObject({ state: 'active', version: 0, description: 'Deploys packages', revokedAt: null });
      expect(credential).toMatchObject({ state: 'active', version: 0, publicPrefix: credential.id, lastUsedAt: null });
      expect(await world.store.findServiceIdentity(identity.id)).toEqual(identity);
      expect(await world.store.findServiceCredentialByPrefix(credential.id)).toEqual(credential);
      expect(await world.store.listServiceCredentialsForIdentity(identity.id)).toEqual([credential]);
      expect((await world.store.listServiceIdentitiesForOrganization(world.organizationId)).at(-1)).toEqual(identity);
      const grant = await world.store.findServiceCredentialGrant(credential.id);
      expect(grant).toEqual({
        credential,
        identity,
        organization: await world.store.findOrganization(world.organizationId),
      });
      expect(await world.store.findServiceCredentialGrant('not-a-prefix')).toBeNull();
    });

    it('refuses credential scopes outside the identity scopes and a taken name, persisting nothing', async () => {
      const { identity } = await created();
      const wide = newIdentity({ capabilities: ['content.read'] });
      const refused = await world.store.createServiceIdentity({
        identity: wide,
        credential: newCredential(wide.id),
        at: world.tick(),
        audits: [audit('service_identity.created', wide.id)],
      });
      expect(refused).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findServiceIdentity(wide.id)).toBeNull();
      const twin = newIdentity({ name: identity.name });
      const taken = await world.store.createServiceIdentity({
        identity: twin,
        credential: newCredential(twin.id),
        at: world.tick(),
        audits: [],
      });
      expect(taken).toEqual({ ok: false, code: 'unique_constraint' });
      const extra = newCredential(identity.id, { capabilities: ['audit.read'] });
      const at = world.tick();
      const tooWide = world.audit('service_credential.created', { type: 'system' });
      expect(
        await world.store.createServiceCredential({
          organizationId: world.organizationId,
          credential: extra,
          at,
          audit: tooWide,
        }),
      ).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.storedAudits([tooWide])).toBe(0);
      const foreign = await world.rows.organization();
      expect(
        await world.store.createServiceCredential({
          organizationId: foreign,
          credential: newCredential(identity.id),
          at,
          audit: tooWide,
        }),
      ).toEqual({ ok: false, code: 'not_found' });
    });

    it('rotates an active credential: old → rotated linked to the new one with the same scopes; revoke persists', async () => {
      const { identity, credential } = await created();
      const at = world.tick();
      const { previous, credential: next } = unwrap(await rotate(identity, credential.id, at));
      expect(previous).toEqual({
        ...credential,
        state: 'rotated',
        rotatedAt: at,
        rotatedToId: next.id,
        updatedAt: at,
        version: credential.version + 1,
      });
      expect(next).toMatchObject({ serviceIdentityId: identity.id, state: 'active', capabilities: SCOPES, version: 0 });
      expect(await world.store.findServiceCredentialByPrefix(credential.id)).toEqual(previous);
      expect(await rotate(identity, credential.id)).toEqual({ ok: false, code: 'invalid_transition' });

      const revoked = unwrap(await revoke(identity, credential.id));
      expect(revoked).toMatchObject({ state: 'revoked', rotatedToId: next.id, version: previous.version + 1 });
      expect(await world.store.findServiceCredentialByPrefix(credential.id)).toEqual(revoked);
      expect(await revoke(identity, credential.id)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await rotate(identity, revoked.id)).toEqual({ ok: false, code: 'invalid_transition' });
    });

    it('refuses to rotate an expired credential or another identity’s, and to revoke another identity’s', async () => {
      const { identity, credential } = await created();
      const other = await created();
      expect(await rotate(other.identity, credential.id)).toEqual({ ok: false, code: 'not_found' });
      expect(await revoke(other.identity, credential.id)).toEqual({ ok: false, code: 'not_found' });
      expect(await revoke(identity, testUuidV7())).toEqual({ ok: false, code: 'not_found' });
      expect(await rotate(identity, credential.id, new Date(credential.expiresAt.getTime()))).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await world.store.findServiceCredentialByPrefix(credential.id)).toEqual(credential);
    });

    it(`lets exactly one of ${world.concurrency} concurrent rotations of one credential win`, async () => {
      const { identity, credential } = await created();
      const at = world.tick();
      const results = await Promise.all(
        Array.from({ length: world.concurrency }, () => rotate(identity, credential.id, at)),
      );
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      expect(new Set(codes)).toEqual(new Set(['invalid_transition']));
      expect(await world.rows.count('service_credentials', 'service_identity_id = ?', [identity.id])).toBe(2);
    });

    it('revoking the identity revokes its active and rotated credentials in the same transaction', async () => {
      const { identity, credential } = await created();
      const { credential: next } = unwrap(await rotate(identity, credential.id));
      const at = world.tick();
      const event = audit('service_identity.revoked', identity.id);
      const result = unwrap(
        await world.store.mutateServiceIdentity({
          serviceIdentityId: identity.id,
          organizationId: world.organizationId,
          expectedVersion: identity.version,
          change: { kind: 'revoke' },
          at,
          audit: event,
        }),
      );
      expect(result.identity).toMatchObject({ state: 'revoked', revokedAt: at, version: identity.version + 1 });
      expect(result.revokedCredentialIds).toEqual([credential.id, next.id].sort());
      const states = (await world.store.listServiceCredentialsForIdentity(identity.id)).map((c) => c.state);
      expect(states).toEqual(['revoked', 'revoked']);
      expect(await world.storedAudits([event])).toBe(1);
      const again = await world.store.mutateServiceIdentity({
        serviceIdentityId: identity.id,
        organizationId: world.organizationId,
        expectedVersion: result.identity.version,
        change: { kind: 'revoke' },
        at,
        audit: audit('service_identity.revoked', identity.id),
      });
      expect(again).toEqual({ ok: false, code: 'invalid_transition' });
      const fresh = newCredential(identity.id);
      expect(
        await world.store.createServiceCredential({
          organizationId: world.organizationId,
          credential: fresh,
          at,
          audit: audit('service_credential.created', fresh.id),
        }),
      ).toEqual({ ok: false, code: 'invalid_transition' });
    });

    it('refuses a stale identity version with retryable version_conflict', async () => {
      const { identity } = await created();
      const renamed = unwrap(
        await world.store.mutateServiceIdentity({
          serviceIdentityId: identity.id,
          organizationId: world.organizationId,
          expectedVersion: identity.version,
          change: { kind: 'update', name: `${identity.name}-2`, description: 'renamed' },
          at: world.tick(),
          audit: audit('service_identity.changed', identity.id),
        }),
      );
      expect(renamed.identity).toMatchObject({ name: `${identity.name}-2`, description: 'renamed', version: 1 });
      const stale = await world.store.mutateServiceIdentity({
        serviceIdentityId: identity.id,
        organizationId: world.organizationId,
        expectedVersion: identity.version,
        change: { kind: 'revoke' },
        at: world.tick(),
        audit: audit('service_identity.revoked', identity.id),
      });
      expect(stale).toEqual({ ok: false, code: 'version_conflict' });
    });

    it('touches lastUsedAt only when it is stale', async () => {
      const { credential } = await created();
      const at = world.tick();
      const touched = unwrap(
        await world.store.touchServiceCredential({ credentialId: credential.id, lastUsedAt: at, staleBefore: at }),
      );
      expect(touched).toMatchObject({ lastUsedAt: at, version: credential.version + 1 });
      const again = await world.store.touchServiceCredential({
        credentialId: credential.id,
        lastUsedAt: new Date(at.getTime() + 1000),
        staleBefore: new Date(at.getTime() - 1000),
      });
      expect(again).toEqual({ ok: true, value: null });
    });
  });
}
