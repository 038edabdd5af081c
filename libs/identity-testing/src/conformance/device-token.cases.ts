import { describe, expect, it } from '@jest/globals';
import type { DeviceRefreshOutcome } from '@tessera/identity';
import { testDigest } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { CLIENT_ID, DAY, DeviceFixture, MINUTE, SECOND, type ClaimedFamily } from './device.fixtures.js';

/** Concurrent refreshes of one token inside its retry window (issue 13 item 3). */
const REFRESH_RACE = 20;

/**
 * Token families (identity-model §5.5 as changed by issue 13): rotation, the refresh retry window
 * (identical sealed successor, one rotation, no second branch), replay → whole-family revocation,
 * membership drift at refresh and at access-token use, RFC 7009 revocation, and the purge.
 */
export function deviceTokenCases(world: ConformanceWorld): void {
  const device = new DeviceFixture(world);
  const revokeAudit = (reason: string) => (family: { id: string; organizationId: string }) => ({
    ...device.audit('device_token.revoked', family.id, reason),
    organizationId: family.organizationId,
  });
  const expectRevoked = async (claimed: ClaimedFamily, reason: string) => {
    const family = (await world.store.findDeviceTokenFamily(claimed.family.id))!;
    expect(family).toMatchObject({ state: 'revoked', revokedReason: reason, revokedAt: world.clock.now() });
    const states = await device.tokenStates(claimed.family.id);
    expect(states.access['active'] ?? 0).toBe(0);
    expect(states.refresh['active'] ?? 0).toBe(0);
    expect(
      await world.rows.count('device_refresh_tokens', 'family_id = ? and retry_until is not null', [family.id]),
    ).toBe(0);
  };

  describe('DEVICE_TOKEN_REPLAY_AND_FAMILY_REVOCATION', () => {
    it('rotates an active refresh token once: old rotated and linked, a new pair at counter + 1, earlier access token still active', async () => {
      const claimed = await device.claimed();
      world.tick();
      const { successor, result } = device.refresh(claimed.family, claimed.issued.refreshToken, { windowMs: null });
      const rotated = unwrap(await result);
      expect(rotated.kind).toBe('rotated');
      if (rotated.kind !== 'rotated') return;
      expect(rotated.previous).toMatchObject({
        id: claimed.issued.refreshToken.id,
        state: 'rotated',
        rotatedToId: successor.refreshToken.id,
        consumedAt: world.clock.now(),
        retryUntil: null,
        version: 1,
      });
      expect(rotated.successor.refreshToken).toMatchObject({ state: 'active', rotationCounter: 1, rotatedToId: null });
      expect(rotated.successor.accessToken.id).toBe(successor.accessToken.id);
      expect(await device.tokenStates(claimed.family.id)).toEqual({
        access: { active: 2 },
        refresh: { active: 1, rotated: 1 },
      });
    });

    it('treats a rotated token presented again without a retry window as a replay: the whole family and all its tokens revoked atomically', async () => {
      const claimed = await device.claimed();
      world.tick();
      const next = device.refresh(claimed.family, claimed.issued.refreshToken, { windowMs: null });
      unwrap(await next.result);
      const replays = await device.auditCount('device_token.replay_detected', 'refresh_token_replay');
      const replay = device.refresh(claimed.family, claimed.issued.refreshToken, { windowMs: null });
      expect(await replay.result).toEqual({ ok: false, code: 'replay_detected' });
      await expectRevoked(claimed, 'refresh_token_replay');
      expect(await device.auditCount('device_token.replay_detected', 'refresh_token_replay')).toBe(replays + 1);
      expect(await world.rows.count('device_refresh_tokens', 'id = ?', [replay.successor.refreshToken.id])).toBe(0);
      // The replacement is revoked with its family: it cannot rotate either.
      expect(await device.refresh(claimed.family, next.successor.refreshToken).result).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
    });

    it('refuses another client, an unknown token and a wrong digest without touching the family', async () => {
      const claimed = await device.claimed();
      expect(
        await device.refresh(claimed.family, claimed.issued.refreshToken, { clientId: 'other-cli' }).result,
      ).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      expect(
        await device.refresh(claimed.family, { id: claimed.issued.refreshToken.id, tokenDigest: testDigest() }).result,
      ).toEqual({ ok: false, code: 'not_found' });
      expect(
        await device.refresh(claimed.family, {
          id: claimed.issued.accessToken.id,
          tokenDigest: claimed.issued.accessToken.tokenDigest,
        }).result,
      ).toEqual({ ok: false, code: 'not_found' });
      expect((await world.store.findDeviceTokenFamily(claimed.family.id))!.version).toBe(0);
      expect(await device.tokenStates(claimed.family.id)).toEqual({ access: { active: 1 }, refresh: { active: 1 } });
    });

    it('blocks rotation after a membership change and revokes the family (membership_authorization_changed)', async () => {
      const claimed = await device.claimed();
      await device.changeRole(claimed.approver.membershipId, 'viewer');
      world.tick();
      expect(await device.refresh(claimed.family, claimed.issued.refreshToken).result).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      await expectRevoked(claimed, 'membership_authorization_changed');
    });

    it('reads the access grant with its standing, which turns membership_changed on removal, suspension or an inactive user', async () => {
      const claimed = await device.claimed();
      const grant = (await world.store.findDeviceAccessGrant(claimed.issued.accessToken.id))!;
      expect(grant).toMatchObject({
        accessToken: claimed.stored.accessToken,
        family: claimed.family,
        standing: 'current',
        user: { id: claimed.approver.userId },
        organization: { id: world.organizationId },
        membership: { id: claimed.approver.membershipId, version: 0 },
      });
      expect(await world.store.findDeviceAccessGrant('not-a-selector')).toBeNull();
      await world.rows.sql("update tessera_identity.users set state = 'suspended' where id = ?", [
        claimed.approver.userId,
      ]);
      expect((await world.store.findDeviceAccessGrant(claimed.issued.accessToken.id))!.standing).toBe(
        'membership_changed',
      );
      await world.rows.sql("update tessera_identity.users set state = 'active' where id = ?", [
        claimed.approver.userId,
      ]);
      expect((await world.store.findDeviceAccessGrant(claimed.issued.accessToken.id))!.standing).toBe('current');
      await world.rows.sql(
        "update tessera_identity.memberships set state = 'removed', removed_at = ?, version = version + 1 where id = ?",
        [world.clock.now(), claimed.approver.membershipId],
      );
      expect((await world.store.findDeviceAccessGrant(claimed.issued.accessToken.id))!.standing).toBe(
        'membership_changed',
      );
      // The resolver revokes on drift; the family and every token go at once.
      const revoked = unwrap(
        await world.store.revokeDeviceTokenFamily({
          family: {
            accessToken: {
              selector: claimed.issued.accessToken.id,
              tokenDigest: claimed.issued.accessToken.tokenDigest,
            },
          },
          clientId: null,
          reason: 'membership_authorization_changed',
          at: world.clock.now(),
          audit: revokeAudit('membership_authorization_changed'),
        }),
      );
      expect(revoked).toMatchObject({ changed: true, family: { state: 'revoked' } });
      await expectRevoked(claimed, 'membership_authorization_changed');
    });

    it('revokes a family by its refresh token (RFC 7009) with its replacement tokens, once, and only for its own client', async () => {
      const claimed = await device.claimed();
      world.tick();
      const next = device.refresh(claimed.family, claimed.issued.refreshToken);
      unwrap(await next.result);
      const revoke = (clientId: string | null, tokenDigest = next.successor.refreshToken.tokenDigest) =>
        world.store.revokeDeviceTokenFamily({
          family: { refreshToken: { selector: next.successor.refreshToken.id, tokenDigest } },
          clientId,
          reason: 'client_revocation',
          at: world.clock.now(),
          audit: revokeAudit('client_revocation'),
        });
      expect(await revoke('other-cli')).toEqual({ ok: false, code: 'not_found' });
      expect(await revoke(CLIENT_ID, testDigest())).toEqual({ ok: false, code: 'not_found' });
      const revocations = await device.auditCount('device_token.revoked', 'client_revocation');
      expect(unwrap(await revoke(CLIENT_ID))).toMatchObject({ changed: true, family: { state: 'revoked' } });
      await expectRevoked(claimed, 'client_revocation');
      expect(await device.tokenStates(claimed.family.id)).toEqual({
        access: { revoked: 2 },
        refresh: { rotated: 1, revoked: 1 },
      });
      expect(unwrap(await revoke(CLIENT_ID))).toMatchObject({ changed: false });
      expect(await device.auditCount('device_token.revoked', 'client_revocation')).toBe(revocations + 1);
      expect(await device.refresh(claimed.family, next.successor.refreshToken).result).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
    });
  });

  describe('CONCURRENT_RETRY_SEMANTICS (refresh retry window)', () => {
    it(`answers ${REFRESH_RACE} concurrent refreshes of one token with one rotation and the identical sealed successor`, async () => {
      const claimed = await device.claimed();
      world.tick();
      const attempts = Array.from({ length: REFRESH_RACE }, () =>
        device.refresh(claimed.family, claimed.issued.refreshToken, { sealed: device.sealed() }),
      );
      const results = await Promise.all(attempts.map((attempt) => attempt.result));
      const { winners, codes } = partition(results);
      expect(codes).toEqual([]);
      const rotations = winners.filter((outcome) => outcome.kind === 'rotated');
      expect(rotations).toHaveLength(1);
      const retries = winners.filter(
        (outcome): outcome is Extract<DeviceRefreshOutcome, { kind: 'retried' }> => outcome.kind === 'retried',
      );
      expect(retries).toHaveLength(REFRESH_RACE - 1);
      // The blob the winning request sealed is the one every retry gets back, byte for byte.
      const winner = attempts[results.findIndex((result) => result.ok && result.value.kind === 'rotated')]!;
      for (const retry of retries) {
        expect(Buffer.from(retry.sealedSuccessor).equals(Buffer.from(winner.sealed!))).toBe(true);
        expect(retry.successor).toEqual(rotations[0]!.successor);
      }
      expect(await world.rows.count('device_refresh_tokens', 'family_id = ?', [claimed.family.id])).toBe(2);
      expect(await device.tokenStates(claimed.family.id)).toEqual({
        access: { active: 2 },
        refresh: { active: 1, rotated: 1 },
      });
      expect((await world.store.findDeviceTokenFamily(claimed.family.id))!.state).toBe('active');
      expect((await world.store.findDeviceRefreshTokenBySelector(claimed.issued.refreshToken.id))!.retryUntil).toEqual(
        new Date(world.clock.now().getTime() + 30 * SECOND),
      );
    });

    it('treats a retry after the successor was used as a replay: family revoked, every sealed successor deleted', async () => {
      const claimed = await device.claimed();
      world.tick();
      const first = device.refresh(claimed.family, claimed.issued.refreshToken);
      unwrap(await first.result);
      world.clock.advance({ seconds: 5 });
      const second = device.refresh(claimed.family, first.successor.refreshToken);
      unwrap(await second.result);
      // Using the successor deleted the parent's sealed copy at once.
      expect(
        (await world.store.findDeviceRefreshTokenBySelector(claimed.issued.refreshToken.id))!.retryUntil,
      ).toBeNull();
      world.clock.advance({ seconds: 5 });
      const retry = device.refresh(claimed.family, claimed.issued.refreshToken);
      expect(await retry.result).toEqual({ ok: false, code: 'replay_detected' });
      await expectRevoked(claimed, 'refresh_token_replay');
    });

    it('treats a retry after the window (frozen clock moved past it) as a replay', async () => {
      const claimed = await device.claimed();
      world.tick();
      const first = device.refresh(claimed.family, claimed.issued.refreshToken);
      unwrap(await first.result);
      const inside = unwrap(
        await device.refresh(claimed.family, claimed.issued.refreshToken, {
          at: new Date(world.clock.now().getTime() + 29 * SECOND),
        }).result,
      );
      expect(inside.kind).toBe('retried');
      world.clock.advance({ seconds: 30 });
      expect(await device.refresh(claimed.family, claimed.issued.refreshToken).result).toEqual({
        ok: false,
        code: 'replay_detected',
      });
      await expectRevoked(claimed, 'refresh_token_replay');
    });

    it('revokes instead of retrying when the membership changed inside the window', async () => {
      const claimed = await device.claimed();
      world.tick();
      unwrap(await device.refresh(claimed.family, claimed.issued.refreshToken).result);
      await device.changeRole(claimed.approver.membershipId, 'admin');
      expect(await device.refresh(claimed.family, claimed.issued.refreshToken).result).toEqual({
        ok: false,
        code: 'invalid_transition',
      });
      await expectRevoked(claimed, 'membership_authorization_changed');
    });
  });

  describe('device rows maintenance', () => {
    it('purges expired grants, expired families with their tokens and grant, and ended retry windows, keeping live rows', async () => {
      const now = world.clock.now();
      // Forty days back: no other case's rows expire before the cutoffs used here.
      const at = new Date(now.getTime() - 40 * DAY);
      world.clock.set(at);
      try {
        const abandoned = await device.started();
        const live = await device.started({ ttlMs: 60 * DAY });
        const claimed = await device.claimed();
        world.clock.advance({ seconds: 1 });
        unwrap(await device.refresh(claimed.family, claimed.issued.refreshToken).result);

        const first = unwrap(
          await world.store.purgeExpiredRows({ before: new Date(at.getTime() + 20 * MINUTE), batchSize: 100 }),
        );
        expect(first.deleted.deviceGrants).toBeGreaterThanOrEqual(1);
        expect(first.deleted.deviceSealedSuccessors).toBeGreaterThanOrEqual(1);
        expect(await world.store.findDeviceGrant(abandoned.grant.id)).toBeNull();
        expect(await world.rows.count('device_grant_digest_reservations', 'grant_id = ?', [abandoned.grant.id])).toBe(
          0,
        );
        expect(
          (await world.store.findDeviceRefreshTokenBySelector(claimed.issued.refreshToken.id))!.retryUntil,
        ).toBeNull();
        expect(await world.store.findDeviceTokenFamily(claimed.family.id)).not.toBeNull();

        const second = unwrap(
          await world.store.purgeExpiredRows({ before: new Date(at.getTime() + 31 * DAY), batchSize: 100 }),
        );
        expect(second.deleted.deviceTokenFamilies).toBeGreaterThanOrEqual(1);
        expect(await world.store.findDeviceTokenFamily(claimed.family.id)).toBeNull();
        expect(await world.store.findDeviceGrant(claimed.grant.id)).toBeNull();
        expect(await world.rows.count('device_refresh_tokens', 'family_id = ?', [claimed.family.id])).toBe(0);
        expect(await world.rows.count('device_access_tokens', 'family_id = ?', [claimed.family.id])).toBe(0);
        expect(
          await world.rows.count('device_token_credential_reservations', 'token_id in (?, ?)', [
            claimed.issued.accessToken.id,
            claimed.issued.refreshToken.id,
          ]),
        ).toBe(0);
        expect(await world.store.findDeviceGrant(live.grant.id)).not.toBeNull();
      } finally {
        world.clock.set(now);
      }
    });
  });
}
