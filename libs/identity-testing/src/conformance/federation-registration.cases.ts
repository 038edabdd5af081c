import { describe, expect, it } from '@jest/globals';
import type {
  AuditEventInput,
  FederationProviderEntry,
  FederationProviderLease,
  NewFederationRegistration,
} from '@tessera/identity';
import { testAuditEvent, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';
import { FederationFixtures, TEST_CERTIFICATE_PEM, testStorageKey } from './federation.fixtures.js';

/**
 * Organization-managed provider registrations (issue 14) and the registry reads: create (with its
 * control), update under CAS, delete (disabling the control), recreate with the same storage key
 * (enabled again, epoch kept) or another one (`already_exists`).
 */
export function federationRegistrationCases(world: ConformanceWorld): void {
  const fixtures = new FederationFixtures(world);

  function audit(action: string, organizationId: string): AuditEventInput {
    return testAuditEvent({ action, at: world.clock.now(), organizationId });
  }

  async function create(registration: NewFederationRegistration) {
    const event = audit('federation_provider.registered', registration.organizationId);
    const result = await world.store.createFederationRegistration({
      registration,
      at: world.tick(),
      audits: () => [event],
    });
    return { result, event };
  }

  async function remove(entry: FederationProviderEntry, expectedVersion = entry.registration.version) {
    const event = audit('federation_provider.deleted', entry.registration.organizationId);
    const result = await world.store.deleteFederationRegistration({
      organizationId: entry.registration.organizationId,
      providerId: entry.registration.providerId,
      expectedVersion,
      reason: 'registration_deleted',
      at: world.tick(),
      audits: () => [event],
    });
    return { result, event };
  }

  const leaseOf = (entry: FederationProviderEntry): FederationProviderLease => ({
    organizationId: entry.registration.organizationId,
    providerId: entry.registration.providerId,
    kind: entry.registration.protocol,
    storageKey: entry.registration.storageKey,
    sessionEpoch: entry.control!.sessionEpoch,
    version: entry.control!.version,
  });

  describe('federation provider registrations', () => {
    it('creates an OIDC and a SAML registration with enabled controls, readable and listed by provider id', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const oidc = fixtures.registration(organizationId, 'oidc', { providerId: 'b-oidc' });
      const saml = fixtures.registration(organizationId, 'saml', {
        providerId: 'a-saml',
        idpCertificatesPem: [TEST_CERTIFICATE_PEM, `${TEST_CERTIFICATE_PEM}\n"quoted, \\escaped"`],
      });
      const created = unwrap((await create(oidc)).result);
      expect(created.registration).toEqual({
        ...oidc,
        version: 0,
        createdAt: world.clock.now(),
        updatedAt: world.clock.now(),
      });
      expect(created.control).toMatchObject({
        state: 'enabled',
        sessionEpoch: 0,
        version: 0,
        storageKey: oidc.storageKey,
      });
      expect(created.linkedIdentities).toBe(0);
      const { result, event } = await create(saml);
      const samlEntry = unwrap(result);
      expect(samlEntry.registration.idpCertificatesPem).toEqual(saml.idpCertificatesPem);
      expect(await world.storedAudits([event])).toBe(1);
      expect(await world.store.findFederationRegistration(organizationId, 'b-oidc')).toEqual(created.registration);
      expect(await world.store.findFederationProvider(organizationId, 'a-saml')).toEqual(samlEntry);
      expect(await world.store.listFederationProviders(organizationId)).toEqual([samlEntry, created]);
      expect(await world.store.listFederationProviders('not-a-uuid')).toEqual([]);
      expect(await world.store.findFederationProvider(organizationId, 'missing')).toBeNull();
    });

    it('counts active links and refuses a second registration of the same provider id', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const entry = unwrap((await create(fixtures.registration(organizationId))).result);
      unwrap(await world.store.linkExternalIdentity(fixtures.signIn(leaseOf(entry), fixtures.jit())));
      expect(
        (await world.store.findFederationProvider(organizationId, entry.registration.providerId))!.linkedIdentities,
      ).toBe(1);
      const duplicate = await create(
        fixtures.registration(organizationId, 'oidc', { providerId: entry.registration.providerId }),
      );
      expect(duplicate.result).toEqual({ ok: false, code: 'already_exists' });
      expect(await world.storedAudits([duplicate.event])).toBe(0);
    });

    it('refuses an inactive or unknown organization with not_found', async () => {
      const suspended = await world.rows.organization({ state: 'suspended', at: world.tick() });
      for (const organizationId of [suspended, testUuidV7(), 'not-a-uuid'])
        expect((await create(fixtures.registration(organizationId))).result).toEqual({ ok: false, code: 'not_found' });
    });

    it('updates under CAS: version + 1, the secret removable; stale → version_conflict; a column of the other protocol → invalid_transition', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const entry = unwrap((await create(fixtures.registration(organizationId))).result);
      const { providerId } = entry.registration;
      const update = (
        expectedVersion: number,
        change: Parameters<typeof world.store.updateFederationRegistration>[0]['change'],
      ) => {
        const event = audit('federation_provider.changed', organizationId);
        return world.store.updateFederationRegistration({
          organizationId,
          providerId,
          expectedVersion,
          change,
          at: world.tick(),
          audit: () => event,
        });
      };
      const changed = unwrap(await update(0, { displayName: 'Renamed', jit: true, clientSecretCiphertext: null }));
      expect(changed.registration).toEqual({
        ...entry.registration,
        displayName: 'Renamed',
        jit: true,
        clientSecretCiphertext: null,
        version: 1,
        updatedAt: world.clock.now(),
      });
      expect(changed.control).toEqual(entry.control);
      expect(await update(0, { displayName: 'Stale' })).toEqual({ ok: false, code: 'version_conflict' });
      expect(await update(1, { ssoUrl: 'https://idp.example.test/sso' })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await world.store.findFederationRegistration(organizationId, providerId)).toEqual(changed.registration);
      const missing = await world.store.updateFederationRegistration({
        organizationId,
        providerId: 'missing',
        expectedVersion: 0,
        change: { jit: false },
        at: world.tick(),
        audit: () => audit('federation_provider.changed', organizationId),
      });
      expect(missing).toEqual({ ok: false, code: 'not_found' });
    });

    it('deletes a registration by disabling its control; recreated with the same key it is enabled with the epoch kept', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const registration = fixtures.registration(organizationId, 'saml');
      const entry = unwrap((await create(registration)).result);
      const signed = unwrap(await world.store.linkExternalIdentity(fixtures.signIn(leaseOf(entry), fixtures.jit())));
      expect((await remove(entry, 1)).result).toEqual({ ok: false, code: 'version_conflict' });
      const deletion = await remove(entry);
      expect(deletion.result).toEqual({ ok: true, value: undefined });
      expect(await world.storedAudits([deletion.event])).toBe(1);
      expect(await remove(entry)).toMatchObject({ result: { ok: false, code: 'not_found' } });
      expect(await world.store.findFederationRegistration(organizationId, registration.providerId)).toBeNull();
      const disabled = await world.store.findFederationProviderControl(organizationId, registration.providerId);
      expect(disabled).toMatchObject({
        state: 'disabled',
        sessionEpoch: 1,
        version: 1,
        disabledReason: 'registration_deleted',
      });
      expect(await world.store.validateFederationProviderLease(leaseOf(entry))).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      expect(await world.store.findExternalIdentity(registration.storageKey, signed.link.subject)).toEqual(signed.link);

      const recreated = unwrap((await create(registration)).result);
      expect(recreated.control).toMatchObject({ state: 'enabled', sessionEpoch: 1, version: 2 });
      expect(recreated.linkedIdentities).toBe(1);
      const standing = await world.store.findFederatedSessionStanding(signed.session.federation!, signed.user.id);
      expect(standing.provider).toEqual({ state: 'enabled', sessionEpoch: 1 });

      unwrap((await remove(recreated)).result);
      const otherKey = await create({ ...registration, storageKey: testStorageKey('saml') });
      expect(otherKey.result).toEqual({ ok: false, code: 'already_exists' });
      expect(await world.store.findFederationRegistration(organizationId, registration.providerId)).toBeNull();
      expect(await world.storedAudits([otherKey.event])).toBe(0);
    });
  });
}
