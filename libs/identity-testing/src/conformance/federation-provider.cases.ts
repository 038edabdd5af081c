import { describe, expect, it } from '@jest/globals';
import type { FederationProviderControlRecord, FederationProviderLease } from '@tessera/identity';
import { testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { FederationFixtures, testProviderId, testStorageKey } from './federation.fixtures.js';

/**
 * FEDERATION_PROVIDER_LIFECYCLE (identity-model §5.9, §11.1): the first lease creates the control
 * enabled at v0 / epoch 0; disable moves version and epoch without rewriting sessions; re-enable
 * keeps the epoch, so leases and sessions from before the disable stay invalid; the disable-CAS
 * race and the start-vs-disable race end in one consistent disabled provider with one audit.
 */
export function federationProviderCases(world: ConformanceWorld): void {
  const fixtures = new FederationFixtures(world);

  /** The provider manager's disable: re-read and CAS up to 8 times, idempotent in the target state. */
  async function disableWithRetry(lease: FederationProviderLease, audited: string[]) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = await world.store.findFederationProviderControl(lease.organizationId, lease.providerId);
      if (current?.state === 'disabled') return current;
      const result = await world.store.compareAndSetFederationProviderState({
        ...fixtures.controlKey(lease),
        expectedVersion: current === null ? null : current.version,
        target: 'disabled',
        reason: 'incident',
        at: world.clock.now(),
        audit: (control) => {
          const event = fixtures.controlAudit('federation_provider.disabled', control.storageKey);
          audited.push(event.id);
          return event;
        },
      });
      if (result.ok) return result.value;
      expect(['version_conflict', 'invalid_transition']).toContain(result.code);
    }
    throw new Error('the disable did not settle in 8 attempts');
  }

  const storedAuditIds = (ids: string[]) =>
    ids.length === 0 ? 0 : world.rows.count('audit_events', `id in (${ids.map(() => '?').join(', ')})`, ids);

  describe('FEDERATION_PROVIDER_LIFECYCLE', () => {
    it('creates the control enabled at version 0 and epoch 0 on the first lease, and hands the same lease again', async () => {
      const lease = await fixtures.provider();
      expect(lease).toMatchObject({ sessionEpoch: 0, version: 0 });
      const control = await world.store.findFederationProviderControl(lease.organizationId, lease.providerId);
      expect(control).toMatchObject({
        ...fixtures.controlKey(lease),
        state: 'enabled',
        sessionEpoch: 0,
        version: 0,
        disabledAt: null,
        disabledReason: null,
      });
      expect(await world.store.findFederationProviderControlByStorageKey(lease.storageKey)).toEqual(control);
      const again = await world.store.acquireFederationProviderLease({
        ...fixtures.controlKey(lease),
        at: world.tick(),
      });
      expect(unwrap(again)).toEqual(lease);
      expect(await world.store.validateFederationProviderLease(lease)).toEqual({ ok: true, value: undefined });
    });

    it('disables without rewriting sessions; re-enable gives epoch 1 at v2; old leases and sessions stay invalid', async () => {
      const lease = await fixtures.provider();
      const signed = unwrap(await world.store.linkExternalIdentity(fixtures.signIn(lease, fixtures.jit())));
      const disabledAt = world.clock.now();
      const disabled = unwrap(await fixtures.disable(lease));
      expect(disabled).toMatchObject({ state: 'disabled', sessionEpoch: 1, version: 1, disabledReason: 'incident' });
      expect(disabled.disabledAt!.getTime()).toBeGreaterThan(disabledAt.getTime());
      expect(await world.store.findSession(signed.session.id)).toEqual(signed.session);
      expect(await world.store.validateFederationProviderLease(lease)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      const start = { ...fixtures.controlKey(lease), at: world.tick() };
      expect(await world.store.acquireFederationProviderLease(start)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });

      const enabled = unwrap(await fixtures.enable(lease, disabled.version));
      expect(enabled).toMatchObject({ state: 'enabled', sessionEpoch: 1, version: 2, disabledAt: null });
      expect(await world.store.findSession(signed.session.id)).toEqual(signed.session);
      expect(await world.store.validateFederationProviderLease(lease)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      const standing = await world.store.findFederatedSessionStanding(signed.session.federation!, signed.user.id);
      expect(standing.provider).toEqual({ state: 'enabled', sessionEpoch: 1 });
      expect(signed.session.federation!.providerSessionEpoch).toBe(0);
      expect(unwrap(await world.store.acquireFederationProviderLease(start))).toEqual({
        ...lease,
        sessionEpoch: 1,
        version: 2,
      });
      expect(await world.store.findExternalIdentity(lease.storageKey, signed.link.subject)).toEqual(signed.link);
    });

    it("refuses another provider's storage key (unique_constraint), writing nothing", async () => {
      const lease = await fixtures.provider();
      const at = world.tick();
      const other = { organizationId: lease.organizationId, providerId: testProviderId(), kind: lease.kind };
      expect(await world.store.acquireFederationProviderLease({ ...other, storageKey: lease.storageKey, at })).toEqual({
        ok: false,
        code: 'unique_constraint',
      });
      const audit = fixtures.controlAudit('federation_provider.disabled', lease.storageKey);
      expect(
        await world.store.compareAndSetFederationProviderState({
          ...other,
          storageKey: lease.storageKey,
          expectedVersion: null,
          target: 'disabled',
          reason: 'taken',
          at,
          audit: () => audit,
        }),
      ).toEqual({ ok: false, code: 'unique_constraint' });
      expect(await world.store.findFederationProviderControl(other.organizationId, other.providerId)).toBeNull();
      expect(await world.storedAudits([audit])).toBe(0);
    });

    it('creates a disabled control at v0, epoch 1, when the first change is a disable', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const key = {
        organizationId,
        providerId: testProviderId(),
        kind: 'saml' as const,
        storageKey: testStorageKey('saml'),
      };
      const audit = fixtures.controlAudit('federation_provider.disabled', key.storageKey);
      const created = unwrap(
        await world.store.compareAndSetFederationProviderState({
          ...key,
          expectedVersion: null,
          target: 'disabled',
          reason: 'not yet',
          at: world.clock.now(),
          audit: () => audit,
        }),
      );
      expect(created).toMatchObject({ state: 'disabled', sessionEpoch: 1, version: 0, disabledReason: 'not yet' });
      expect(await world.storedAudits([audit])).toBe(1);
    });

    it('answers the CAS misses: same state, stale version, another storage key, unknown control, bad reason', async () => {
      const lease = await fixtures.provider();
      const control = unwrap(await fixtures.disable(lease));
      expect(await fixtures.disable(lease, control.version)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await fixtures.enable(lease, 0)).toEqual({ ok: false, code: 'version_conflict' });
      const foreignKey = { ...lease, storageKey: testStorageKey() };
      expect(await fixtures.enable(foreignKey, control.version)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await fixtures.enable({ ...lease, providerId: testProviderId() }, 0)).toEqual({
        ok: false,
        code: 'not_found',
      });
      expect(await fixtures.enable({ ...lease, organizationId: 'not-a-uuid' }, 0)).toEqual({
        ok: false,
        code: 'not_found',
      });
      const blank = await world.store.compareAndSetFederationProviderState({
        ...fixtures.controlKey(lease),
        expectedVersion: control.version,
        target: 'disabled',
        reason: '',
        at: world.tick(),
        audit: (changed) => fixtures.controlAudit('federation_provider.disabled', changed.storageKey),
      });
      expect(blank).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.store.findFederationProviderControl(lease.organizationId, lease.providerId)).toEqual(control);
    });

    it('refuses a lease for another kind or storage key, and for an inactive or unknown organization', async () => {
      const lease = await fixtures.provider();
      const at = world.tick();
      expect(
        await world.store.acquireFederationProviderLease({
          ...fixtures.controlKey(lease),
          storageKey: testStorageKey(),
          at,
        }),
      ).toEqual({ ok: false, code: 'invalid_transition' });
      const suspended = await world.rows.organization({ state: 'suspended', at });
      for (const organizationId of [suspended, testUuidV7(at), 'not-a-uuid'])
        expect(
          await world.store.acquireFederationProviderLease({ ...fixtures.controlKey(lease), organizationId, at }),
        ).toEqual({ ok: false, code: 'not_found' });
      expect(await world.rows.count('federation_provider_controls', 'organization_id = ?', [suspended])).toBe(0);
    });

    it(`leaves one disabled provider and one audit under ${world.concurrency} concurrent disables`, async () => {
      const lease = await fixtures.provider();
      world.tick();
      const audits = Array.from({ length: world.concurrency }, () =>
        fixtures.controlAudit('federation_provider.disabled', lease.storageKey),
      );
      const results = await Promise.all(
        audits.map((audit) =>
          world.store.compareAndSetFederationProviderState({
            ...fixtures.controlKey(lease),
            expectedVersion: 0,
            target: 'disabled',
            reason: 'incident',
            at: world.clock.now(),
            audit: () => audit,
          }),
        ),
      );
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      for (const code of codes) expect(['invalid_transition', 'version_conflict']).toContain(code);
      expect(winners[0]).toMatchObject({ state: 'disabled', sessionEpoch: 1, version: 1 });
      expect(await world.storedAudits(audits)).toBe(1);
    });

    it('settles a start racing a disable into one consistent disabled provider with a single audit', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const key = { organizationId, providerId: testProviderId(), kind: 'oidc' as const, storageKey: testStorageKey() };
      const lease: FederationProviderLease = { ...key, sessionEpoch: 0, version: 0 };
      const audited: string[] = [];
      const starts = Array.from({ length: world.concurrency - 1 }, () =>
        world.store.acquireFederationProviderLease({ ...key, at: world.clock.now() }),
      );
      const [disabled, ...started] = await Promise.all([disableWithRetry(lease, audited), ...starts]);
      const control = (await world.store.findFederationProviderControl(organizationId, key.providerId))!;
      expect(control).toEqual(disabled as FederationProviderControlRecord);
      expect(control).toMatchObject({ state: 'disabled', sessionEpoch: 1 });
      expect(control.version).toBeLessThanOrEqual(1);
      expect(await storedAuditIds(audited)).toBe(1);
      for (const result of started) {
        if (!result.ok) expect(result.code).toBe('federation_provider_disabled');
        else
          expect(await world.store.validateFederationProviderLease(result.value)).toEqual({
            ok: false,
            code: 'federation_provider_disabled',
          });
      }
    });
  });
}
