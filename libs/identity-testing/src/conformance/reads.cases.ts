import { describe, expect, it } from '@jest/globals';
import { newTestSession, testAuditEvent, testDigest, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

/** Reads of identity-model §9.1 and the standalone audit append. */
export function readCases(world: ConformanceWorld): void {
  describe('reads', () => {
    it('lists every session of a user, any state, newest lastUsedAt first', async () => {
      const userId = await world.rows.user();
      const base = world.tick().getTime();
      const order = [3, 1, 4, 2];
      const ids: string[] = [];
      for (const minutes of order) {
        const session = newTestSession({ userId, at: new Date(base) });
        await world.rows.session(session, {
          lastUsedAt: new Date(base + minutes * 60_000),
          state: minutes === 1 ? 'revoked' : 'active',
        });
        ids[minutes] = session.id;
      }
      const listed = await world.store.listSessionsForUser(userId);
      expect(listed.map((s) => s.id)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
      expect(listed.map((s) => s.state)).toEqual(['active', 'active', 'active', 'revoked']);
    });

    it('lists active memberships in active organizations only, sorted by organization id', async () => {
      const userId = await world.rows.user();
      const active = [
        await world.rows.organization(),
        await world.rows.organization(),
        await world.rows.organization(),
      ];
      for (const organizationId of active) await world.rows.membership(organizationId, userId, { role: 'publisher' });
      await world.rows.membership(await world.rows.organization({ state: 'suspended' }), userId);
      await world.rows.membership(await world.rows.organization({ state: 'deleted' }), userId);
      await world.rows.membership(await world.rows.organization(), userId, { state: 'suspended' });
      await world.rows.membership(await world.rows.organization(), userId, { state: 'removed' });

      const listed = await world.store.listOrganizationsForUser(userId);
      expect(listed.map((entry) => entry.organization.id)).toEqual([...active].sort());
      for (const { organization, membership } of listed) {
        expect(organization).toEqual(await world.store.findOrganization(organization.id));
        expect(membership).toEqual(await world.store.findMembershipForUser(organization.id, userId));
        expect(membership).toEqual(await world.store.findMembership(membership.id));
        expect(membership).toMatchObject({ userId, role: 'publisher', state: 'active' });
      }
    });

    it('finds users by email case-insensitively and organizations by slug', async () => {
      const userId = await world.rows.user({ email: 'Mixed.Case@Example.test' });
      const user = await world.store.findUser(userId);
      expect(user).toMatchObject({ id: userId, primaryEmail: 'Mixed.Case@Example.test', state: 'active', version: 0 });
      expect(await world.store.findUserByEmail('mixed.case@example.TEST')).toEqual(user);
      const organization = (await world.store.findOrganization(world.organizationId))!;
      expect(await world.store.findOrganizationBySlug(organization.slug)).toEqual(organization);
    });

    it('lists users by ids in one read, ignoring unknown, malformed and repeated ids', async () => {
      const first = await world.rows.user();
      const second = await world.rows.user({ email: null });
      const listed = await world.store.listUsersByIds([second, first, first, testUuidV7(), 'nope']);
      expect(listed.map((user) => user.id).sort()).toEqual([first, second].sort());
      expect(listed.find((user) => user.id === first)).toEqual(await world.store.findUser(first));
      expect(listed.find((user) => user.id === second)?.primaryEmail).toBeNull();
    });

    it('answers null or an empty list for unknown and malformed identifiers instead of failing', async () => {
      const unknown = testUuidV7();
      for (const id of [unknown, 'not-a-uuid', '']) {
        expect(await world.store.findUser(id)).toBeNull();
        expect(await world.store.findSession(id)).toBeNull();
        expect(await world.store.findOrganization(id)).toBeNull();
        expect(await world.store.findMembership(id)).toBeNull();
        expect(await world.store.findMembershipForUser(world.organizationId, id)).toBeNull();
        expect(await world.store.findInvitation(id)).toBeNull();
        expect(await world.store.listSessionsForUser(id)).toEqual([]);
        expect(await world.store.listOrganizationsForUser(id)).toEqual([]);
        expect(await world.store.findCredential(id)).toBeNull();
        expect(await world.store.findChallenge(id)).toBeNull();
        expect(await world.store.listCredentialsForUser(id)).toEqual([]);
        expect(await world.store.listRecoveryCodesForUser(id)).toEqual([]);
        expect(await world.store.findInvitationAcceptedByUser(id)).toBeNull();
      }
      expect(await world.store.findCredentialByWebAuthnId('bm8tc3VjaC1wYXNza2V5')).toBeNull();
      expect(await world.store.findRecoveryCodeBySelector('AAAAAAAAAAA')).toBeNull();
      expect(await world.store.findRecoveryCodeByDigests([testDigest(), testDigest('v2')])).toBeNull();
      expect(await world.store.findUserByEmail('nobody@example.test')).toBeNull();
      expect(await world.store.listUsersByIds([unknown, 'not-a-uuid', ''])).toEqual([]);
      expect(await world.store.listUsersByIds([])).toEqual([]);
      expect(await world.store.findOrganizationBySlug('no-such-slug')).toBeNull();
      expect(await world.store.findInvitationByTokenDigest(testDigest())).toBeNull();
      expect(await world.store.findInvitationByTokenDigest({ ...testDigest(), keyVersion: null })).toBeNull();
    });
  });

  describe('audit append', () => {
    it('stores a standalone event with its actor, target and pseudonymous request facts', async () => {
      const userId = await world.rows.user();
      const event = testAuditEvent({
        action: 'credential.authentication_failed',
        at: world.tick(),
        actor: { type: 'user', userId },
        organizationId: world.organizationId,
        target: { type: 'user', id: userId },
        reasonCode: 'signature_invalid',
      });
      expect(await world.store.appendAuditEvent(event)).toEqual({ ok: true, value: undefined });
      const rows = await world.rows.sql(
        `select actor_type, actor_user_id, organization_id, action, target_type, target_id, outcome, reason_code,
                request_id, request_client_ip_digest, request_user_agent, request_trusted_proxy,
                occurred_at = ? as occurred_at_matches
           from tessera_identity.audit_events where id = ?`,
        [event.occurredAt, event.id],
      );
      expect(rows).toEqual([
        {
          actor_type: 'user',
          actor_user_id: userId,
          organization_id: world.organizationId,
          action: event.action,
          target_type: 'user',
          target_id: userId,
          outcome: 'succeeded',
          reason_code: 'signature_invalid',
          request_id: event.request!.requestId,
          request_client_ip_digest: event.request!.clientIpDigest,
          request_user_agent: null,
          request_trusted_proxy: false,
          occurred_at_matches: true,
        },
      ]);
    });

    it('reports an event the schema rejects, or a duplicate id, as a failure instead of throwing', async () => {
      const event = testAuditEvent({ action: 'identity.tested', at: world.tick() });
      unwrap(await world.store.appendAuditEvent(event));
      expect(await world.store.appendAuditEvent(event)).toEqual({ ok: false, code: 'unique_constraint' });
      const malformed = testAuditEvent({ action: 'Not An Action', at: world.clock.now() });
      expect(await world.store.appendAuditEvent(malformed)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await world.rows.count('audit_events', 'id = ?', [malformed.id])).toBe(0);
    });
  });
}
