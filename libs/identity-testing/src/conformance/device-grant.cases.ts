import { describe, expect, it } from '@jest/globals';
import { testDigest, testUuidV7 } from '../identity-test.rows.js';
import { expectRetryableConflicts, partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CLIENT_ID, DeviceFixture, MINUTE, SECOND } from './device.fixtures.js';

/** Concurrent exchanges of one authorized device code (issue 13 acceptance: exactly one family). */
const CLAIM_RACE = 50;

/**
 * Device grants (identity-model §5.5 / §9.2): creation with one digest namespace, polling with a
 * stored `slow_down`, inspection-bound approval and denial, cancellation, expiry, and THE claim —
 * one compare-and-set, one family, whatever the number of concurrent exchanges.
 */
export function deviceGrantCases(world: ConformanceWorld): void {
  const device = new DeviceFixture(world);
  const poll = (
    deviceCodeDigest: Parameters<typeof world.store.recordDeviceGrantPoll>[0]['deviceCodeDigest'],
    over: { clientId?: string; at?: Date } = {},
  ) =>
    world.store.recordDeviceGrantPoll({
      deviceCodeDigest,
      clientId: over.clientId ?? CLIENT_ID,
      at: over.at ?? world.clock.now(),
      audits: ({ outcome, grant }) => [device.audit('device_grant.changed', grant.id, `device_poll_${outcome}`)],
    });

  describe('device grants', () => {
    it('creates a pending grant at version 0 with sorted scopes, found by id and by either code digest', async () => {
      world.tick();
      const { grant, deviceCodeDigest, userCodeDigest } = await device.started();
      expect(grant).toMatchObject({
        state: 'pending',
        version: 0,
        pollCount: 0,
        intervalSeconds: 5,
        lastPolledAt: null,
        authorization: null,
        inspection: null,
        requestedCapabilities: ['identity.organizations', 'identity.profile', 'package.publish'],
      });
      expect(await world.store.findDeviceGrant(grant.id)).toEqual(grant);
      expect(await world.store.findDeviceGrantByDeviceCodeDigest(deviceCodeDigest)).toEqual(grant);
      expect(await world.store.findDeviceGrantByUserCodeDigest(userCodeDigest)).toEqual(grant);
      expect(await world.store.findDeviceGrantByUserCodeDigest(deviceCodeDigest)).toBeNull();
      expect(await world.store.findDeviceGrantByDeviceCodeDigest({ ...deviceCodeDigest, keyVersion: 'v2' })).toBeNull();
      expect(await world.store.findDeviceGrant('not-a-uuid')).toBeNull();
    });

    it('refuses a code digest already taken by another grant, of either kind, persisting nothing', async () => {
      const first = await device.started();
      const at = world.clock.now();
      for (const [deviceCodeDigest, userCodeDigest] of [
        [first.deviceCodeDigest, testDigest()],
        [testDigest(), first.deviceCodeDigest],
        [first.userCodeDigest, testDigest()],
      ]) {
        const id = testUuidV7(at);
        const audit = device.audit('device_grant.changed', id, 'device_authorization_started');
        const refused = await world.store.createDeviceGrant({
          grant: {
            id,
            deviceCodeDigest: deviceCodeDigest!,
            userCodeDigest: userCodeDigest!,
            clientId: CLIENT_ID,
            clientName: 'Tessera CLI',
            requestedCapabilities: ['identity.profile'],
            intervalSeconds: 5,
            expiresAt: new Date(at.getTime() + 10 * MINUTE),
          },
          at,
          audit,
        });
        expect(refused).toEqual({ ok: false, code: 'unique_constraint' });
        expect(await world.store.findDeviceGrant(id)).toBeNull();
        expect(await world.storedAudits([audit])).toBe(0);
      }
    });

    describe('CONCURRENT_RETRY_SEMANTICS (device grants)', () => {
      it('answers the losers of a same-id insert race with a retryable version_conflict', async () => {
        const id = testUuidV7(world.tick());
        const results = await Promise.all(Array.from({ length: world.concurrency }, () => device.start({ id }).result));
        const { winners, codes } = partition(results);
        expect(winners).toHaveLength(1);
        expectRetryableConflicts(codes);
        expect(await world.rows.count('device_grants', 'id = ?', [id])).toBe(1);
        expect(await world.rows.count('device_grant_digest_reservations', 'grant_id = ?', [id])).toBe(2);
      });
    });

    it('answers the first poll authorization_pending, an early one slow_down with the raised interval stored, and a wrong client invalid_grant untouched', async () => {
      const { grant, deviceCodeDigest } = await device.started();
      const at = world.clock.now();
      const first = unwrap(await poll(deviceCodeDigest, { at }));
      expect(first.outcome).toBe('authorization_pending');
      expect(first.grant).toMatchObject({ pollCount: 1, lastPolledAt: at, intervalSeconds: 5, version: 1 });
      const early = unwrap(await poll(deviceCodeDigest, { at: new Date(at.getTime() + 4 * SECOND) }));
      expect(early.outcome).toBe('slow_down');
      expect(early.grant).toMatchObject({ pollCount: 2, intervalSeconds: 10, version: 2 });
      // 6 s after the early poll is inside the stored 10 s interval: slow down again.
      const again = unwrap(await poll(deviceCodeDigest, { at: new Date(at.getTime() + 10 * SECOND) }));
      expect(again.outcome).toBe('slow_down');
      expect(again.grant.intervalSeconds).toBe(15);
      const paced = unwrap(await poll(deviceCodeDigest, { at: new Date(at.getTime() + 25 * SECOND) }));
      expect(paced.outcome).toBe('authorization_pending');
      expect(paced.grant.intervalSeconds).toBe(15);
      const foreign = unwrap(
        await poll(deviceCodeDigest, { clientId: 'other-cli', at: new Date(at.getTime() + 26 * SECOND) }),
      );
      expect(foreign.outcome).toBe('invalid_grant');
      expect((await world.store.findDeviceGrant(grant.id))!.version).toBe(paced.grant.version);
      expect(
        await world.rows.count('audit_events', "target_id = ? and reason_code like 'device_poll_%'", [grant.id]),
      ).toBe(4);
      expect(await poll(testDigest())).toEqual({ ok: false, code: 'not_found' });
    });

    it('caps the polling interval at 300 seconds', async () => {
      const { grant, deviceCodeDigest } = await device.started();
      const at = world.clock.now();
      unwrap(await poll(deviceCodeDigest, { at }));
      await world.rows.sql('update tessera_identity.device_grants set interval_seconds = 298 where id = ?', [grant.id]);
      const slowed = unwrap(await poll(deviceCodeDigest, { at: new Date(at.getTime() + SECOND) }));
      expect(slowed).toMatchObject({ outcome: 'slow_down', grant: { intervalSeconds: 300 } });
      const capped = unwrap(await poll(deviceCodeDigest, { at: new Date(at.getTime() + 2 * SECOND) }));
      expect(capped).toMatchObject({ outcome: 'slow_down', grant: { intervalSeconds: 300 } });
    });

    it('accepts approval only from the session that inspected the grant in the last 10 minutes, with approved ⊆ requested', async () => {
      const approver = await device.approver();
      const other = await device.approver();
      const started = await device.started();
      expect(await device.authorize(started, approver)).toEqual({ ok: false, code: 'invalid_transition' });
      const inspected = unwrap(await device.inspect(started, approver));
      expect(inspected.inspection).toEqual({ sessionId: approver.sessionId, inspectedAt: world.clock.now() });
      expect(await device.authorize(started, approver, { sessionId: other.sessionId })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await device.authorize(started, approver, { scopes: ['audit.read'] })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await device.authorize(started, approver, { scopes: [] })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await device.authorize(started, approver, { organizationId: await world.rows.organization() })).toEqual({
        ok: false,
        code: 'not_found',
      });
      // Past the grant's expiry (10 minutes).
      expect(
        await device.authorize(started, approver, { at: new Date(world.clock.now().getTime() + 11 * MINUTE) }),
      ).toEqual({ ok: false, code: 'challenge_expired' });
      expect((await world.store.findDeviceGrant(started.grant.id))!.state).toBe('pending');

      const authorized = unwrap(
        await device.authorize(started, approver, { scopes: ['package.publish', 'identity.profile'] }),
      );
      expect(authorized).toMatchObject({ state: 'authorized', version: inspected.version + 1 });
      expect(authorized.authorization).toEqual({
        userId: approver.userId,
        organizationId: world.organizationId,
        membershipId: approver.membershipId,
        membershipVersion: 0,
        authorizedByUserId: approver.userId,
        authorizedAt: world.clock.now(),
        approvedCapabilities: ['identity.profile', 'package.publish'],
      });
      expect(await device.authorize(started, approver)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await device.inspect(started, approver)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(unwrap(await poll(started.deviceCodeDigest)).outcome).toBe('authorized');
    });

    it('refuses a stale inspection and denies from the inspecting session; a denied grant polls access_denied', async () => {
      const approver = await device.approver();
      const started = await device.started();
      unwrap(await device.inspect(started, approver));
      const deny = (over: { inspectedSince?: Date; sessionId?: string } = {}) =>
        world.store.denyDeviceGrant({
          userCodeDigest: started.userCodeDigest,
          sessionId: over.sessionId ?? approver.sessionId,
          inspectedSince: over.inspectedSince ?? new Date(world.clock.now().getTime() - 10 * MINUTE),
          at: world.clock.now(),
          audit: device.audit('device_grant.changed', started.grant.id, 'device_authorization_denied'),
        });
      expect(await deny({ inspectedSince: new Date(world.clock.now().getTime() + SECOND) })).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(await deny({ sessionId: testUuidV7() })).toEqual({ ok: false, code: 'invalid_transition' });
      expect(unwrap(await deny()).state).toBe('denied');
      expect(await deny()).toEqual({ ok: false, code: 'invalid_transition' });
      expect(unwrap(await poll(started.deviceCodeDigest)).outcome).toBe('access_denied');
      expect(await device.claim(started).result).toEqual({ ok: false, code: 'invalid_transition' });
    });

    it('expires a pending or authorized grant polled at or after its expiry, and cancels only pending or authorized grants', async () => {
      const pending = await device.started({ ttlMs: MINUTE });
      const late = new Date(pending.grant.expiresAt.getTime());
      const expired = unwrap(await poll(pending.deviceCodeDigest, { at: late }));
      expect(expired).toMatchObject({ outcome: 'expired_token', grant: { state: 'expired' } });
      expect(unwrap(await poll(pending.deviceCodeDigest, { at: late })).outcome).toBe('expired_token');
      expect(
        await world.rows.count('audit_events', 'target_id = ? and reason_code = ?', [
          pending.grant.id,
          'device_poll_expired_token',
        ]),
      ).toBe(1);

      const authorized = await device.authorized();
      expect(
        unwrap(
          await poll(authorized.deviceCodeDigest, { at: new Date(authorized.grant.expiresAt.getTime() + SECOND) }),
        ),
      ).toMatchObject({ outcome: 'expired_token', grant: { state: 'expired' } });
      expect(await device.claim(authorized).result).toEqual({ ok: false, code: 'invalid_transition' });

      const cancel = (started: { deviceCodeDigest: typeof pending.deviceCodeDigest; grant: { id: string } }) =>
        world.store.cancelDeviceGrant({
          deviceCodeDigest: started.deviceCodeDigest,
          at: world.clock.now(),
          audit: device.audit('device_grant.changed', started.grant.id, 'device_authorization_cancelled'),
        });
      expect(await cancel(pending)).toEqual({ ok: false, code: 'invalid_transition' });
      const toCancel = await device.authorized();
      expect(unwrap(await cancel(toCancel)).state).toBe('cancelled');
      expect(await cancel(toCancel)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(unwrap(await poll(toCancel.deviceCodeDigest)).outcome).toBe('invalid_grant');
      expect(await device.claim(toCancel).result).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await cancel({ deviceCodeDigest: testDigest(), grant: { id: testUuidV7() } })).toEqual({
        ok: false,
        code: 'not_found',
      });
    });

    it(`exchanges an authorized device code exactly once under ${CLAIM_RACE} concurrent claims: one family, one pair`, async () => {
      const started = await device.authorized();
      const issuedBefore = await device.auditCount('device_token.issued');
      const results = await Promise.all(Array.from({ length: CLAIM_RACE }, () => device.claim(started).result));
      const { winners, codes } = partition(results);
      expect(winners).toHaveLength(1);
      expect(new Set(codes)).toEqual(new Set(['invalid_transition']));
      const [{ family, grant, tokens }] = winners as [(typeof winners)[number]];
      expect(grant.state).toBe('consumed');
      expect(family).toMatchObject({
        state: 'active',
        deviceGrantId: started.grant.id,
        userId: started.approver.userId,
        organizationId: world.organizationId,
        membershipId: started.approver.membershipId,
        membershipVersion: 0,
        clientId: CLIENT_ID,
        capabilities: ['identity.profile', 'package.publish'],
        version: 0,
        revokedAt: null,
      });
      expect(tokens.refreshToken).toMatchObject({ state: 'active', rotationCounter: 0, rotatedToId: null });
      expect(tokens.accessToken.state).toBe('active');
      expect(await world.rows.count('device_token_families', 'device_grant_id = ?', [started.grant.id])).toBe(1);
      expect(await device.tokenStates(family.id)).toEqual({ access: { active: 1 }, refresh: { active: 1 } });
      expect(await device.auditCount('device_token.issued')).toBe(issuedBefore + 1);
      expect(await world.store.findDeviceTokenFamily(family.id)).toEqual(family);
      expect(await world.store.findDeviceAccessTokenBySelector(tokens.accessToken.id)).toEqual(tokens.accessToken);
      expect(await world.store.findDeviceRefreshTokenBySelector(tokens.refreshToken.id)).toEqual(tokens.refreshToken);
      expect(unwrap(await poll(started.deviceCodeDigest)).outcome).toBe('invalid_grant');
    });

    it('refuses a claim by another client, and cancels the grant when the approver membership changed', async () => {
      const started = await device.authorized();
      expect(await device.claim(started, { clientId: 'other-cli' }).result).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect((await world.store.findDeviceGrant(started.grant.id))!.state).toBe('authorized');
      await device.changeRole(started.approver.membershipId, 'viewer');
      expect(await device.claim(started).result).toEqual({ ok: false, code: 'invalid_transition' });
      expect((await world.store.findDeviceGrant(started.grant.id))!.state).toBe('cancelled');
      expect(await world.rows.count('device_token_families', 'device_grant_id = ?', [started.grant.id])).toBe(0);
      expect(
        await world.rows.count('audit_events', 'target_id = ? and reason_code = ?', [
          started.grant.id,
          'membership_authorization_changed',
        ]),
      ).toBe(1);
    });
  });
}
