import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CapabilityResolver } from '@tessera/identity';
import type { IdentityTestApp } from '../../support/identity-app.js';
import {
  bootDeviceApp,
  decide,
  oauthError,
  pollToken,
  refreshToken,
  rowsOf,
  seedApprover,
  startDevice,
} from './device.fixtures.js';

const INVALID_GRANT = oauthError('invalid_grant', 'The grant or token is invalid, expired or revoked.');

/**
 * What the exchange and the refresh re-check after approval (identity-model §5.5): a role or an
 * application grant that no longer covers the approved capabilities cancels the grant at the
 * exchange (`membership_authorization_changed`), and a family past its lifetime refreshes nothing.
 */
describe('device exchange after the delegation changed', () => {
  let identity: IdentityTestApp;
  // Users whose application grant the host has withdrawn since they approved.
  const withdrawn = new Set<string>();
  const publishers: CapabilityResolver = {
    resolve: ({ role, principal }) => (role === 'viewer' || withdrawn.has(principal.id) ? [] : ['package.publish']),
  };

  beforeAll(async () => {
    identity = await bootDeviceApp(
      { oauth_token: { limit: 100, windowSeconds: 60 } },
      { config: { lifetimes: { deviceTokenFamilySeconds: 3600 } }, resolvers: [publishers] },
    );
  });

  afterAll(async () => {
    await identity?.close();
  });

  const grantOf = async (membershipId: string) =>
    rowsOf(identity, 'select id, state from tessera_identity.device_grants where membership_id = ?', [membershipId]);

  it('cancels the grant when the application grant behind an approved capability is withdrawn', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity, { scope: 'identity.profile package.publish' });
    await decide(identity, started.user_code, approver, { approve: ['identity.profile', 'package.publish'] });
    withdrawn.add(approver.userId);

    const refused = await pollToken(identity, started.device_code);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: INVALID_GRANT });
    const [grant] = await grantOf(approver.membershipId);
    expect(grant).toMatchObject({ state: 'cancelled' });
    const audits = await rowsOf(
      identity,
      'select action, reason_code from tessera_identity.audit_events where target_id = ? order by occurred_at, id',
      [grant!.id],
    );
    expect(audits).toContainEqual({ action: 'device_grant.changed', reason_code: 'membership_authorization_changed' });
    expect(
      await rowsOf(identity, 'select id from tessera_identity.device_token_families where membership_id = ?', [
        approver.membershipId,
      ]),
    ).toEqual([]);
    // The grant is settled: later polls are invalid_grant too.
    identity.clock.advance({ seconds: 6 });
    expect((await pollToken(identity, started.device_code)).body).toEqual(INVALID_GRANT);
  });

  it('exchanges a narrower approval the withdrawn grant does not touch', async () => {
    const approver = await seedApprover(identity);
    withdrawn.add(approver.userId);
    const started = await startDevice(identity, { scope: 'identity.profile package.publish' });
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    const issued = await pollToken(identity, started.device_code);
    expect({ status: issued.status, scope: issued.body.scope }).toEqual({ status: 200, scope: 'identity.profile' });
  });

  it('cancels the grant when the approver’s role changed between approval and exchange', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity, { scope: 'identity.profile' });
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    await rowsOf(
      identity,
      "update tessera_identity.memberships set role = 'viewer', version = version + 1 where id = ?",
      [approver.membershipId],
    );
    expect((await pollToken(identity, started.device_code)).body).toEqual(INVALID_GRANT);
    expect(await grantOf(approver.membershipId)).toEqual([{ id: expect.any(String), state: 'cancelled' }]);
  });

  it('refuses a refresh once the family’s lifetime is over', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity, { scope: 'identity.profile' });
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    const issued = (await pollToken(identity, started.device_code)).body as { refresh_token: string };
    identity.clock.advance({ seconds: 3600 });
    const refused = await refreshToken(identity, issued.refresh_token);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: INVALID_GRANT });
  });
});
