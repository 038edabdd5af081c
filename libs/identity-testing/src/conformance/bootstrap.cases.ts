import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IdentityStore } from '@tessera/identity';
import { newTestSession, newTestUser, testAuditEvent, testBase64Url, testUuidV7 } from '../identity-test.rows.js';
import { IdentityTestRows } from '../identity-test.seed.js';
import {
  partition,
  TEST_MARKER,
  unwrap,
  type IdentityStoreConformanceOptions,
  type IdentityStoreHarness,
} from './conformance.world.js';

type BootstrapInput = Parameters<IdentityStore['bootstrapIdentity']>[0];

const INSTALLATION_TABLES = ['users', 'organizations', 'memberships', 'bootstrap_receipts', 'sessions', 'audit_events'];

function bootstrapInput(at: Date): BootstrapInput {
  const user = newTestUser();
  const organizationId = testUuidV7(at);
  return {
    user,
    organization: { id: organizationId, name: 'Acme', slug: `acme-${organizationId.slice(-12)}` },
    membership: { id: testUuidV7(at), organizationId, userId: user.id, role: 'owner' },
    session: newTestSession({ userId: user.id, at, method: 'bootstrap', idleSeconds: 900, absoluteSeconds: 900 }),
    receiptDigest: testBase64Url(),
    at,
    audits: [
      testAuditEvent({
        action: 'identity.bootstrapped',
        at,
        organizationId,
        target: { type: 'organization', id: organizationId },
      }),
    ],
  };
}

/** Bootstrap (identity-model §5.7): one atomic command on a completely empty store, one winner. */
export function bootstrapCases(options: IdentityStoreConformanceOptions): void {
  describe('bootstrap', () => {
    let harness: IdentityStoreHarness;
    let rows: IdentityTestRows;
    const at = new Date('2031-05-01T10:00:00.000Z');
    const concurrency = Math.max(2, options.concurrency ?? 10);

    beforeAll(async () => {
      harness = await options.createStore();
      rows = new IdentityTestRows(harness.em);
      unwrap(await harness.store.provisionEnvironment(TEST_MARKER));
    });

    afterAll(async () => {
      await harness?.close();
    });

    const counts = async () => Promise.all(INSTALLATION_TABLES.map((table) => rows.count(table)));

    it('reports a store without users, organizations or receipt as empty', async () => {
      expect(await harness.store.isEmpty()).toBe(true);
    });

    it(`creates exactly one installation under ${concurrency} concurrent bootstraps`, async () => {
      const attempts = Array.from({ length: concurrency }, () => bootstrapInput(at));
      const results = await Promise.all(attempts.map((input) => harness.store.bootstrapIdentity(input)));
      const { winners, codes, indexes } = partition(results);
      expect(winners).toHaveLength(1);
      expect(codes).toEqual(Array(concurrency - 1).fill('already_exists'));

      const input = attempts[indexes[0]!]!;
      const { user, organization, membership, session } = winners[0]!;
      expect(user).toMatchObject({ id: input.user.id, state: 'active', sessionEpoch: 0, version: 0 });
      expect(organization).toMatchObject({ id: input.organization.id, slug: input.organization.slug, state: 'active' });
      expect(membership).toMatchObject({
        userId: user.id,
        organizationId: organization.id,
        role: 'owner',
        state: 'active',
      });
      expect(session).toMatchObject({
        id: input.session.id,
        userId: user.id,
        state: 'active',
        authenticationMethod: 'bootstrap',
        assurance: 'recovery',
        userSessionEpoch: user.sessionEpoch,
        rotationCounter: 0,
        version: 0,
      });
      expect(await counts()).toEqual([1, 1, 1, 1, 1, 1]);
      expect(
        await rows.sql('select digest_encoded, user_id, organization_id from tessera_identity.bootstrap_receipts'),
      ).toEqual([{ digest_encoded: input.receiptDigest, user_id: user.id, organization_id: organization.id }]);
      expect(await rows.count('audit_events', 'id = ?', [input.audits[0]!.id])).toBe(1);
      expect(await harness.store.isEmpty()).toBe(false);
      expect(await harness.store.findSession(session.id)).toEqual(session);
      expect(await harness.store.listOrganizationsForUser(user.id)).toEqual([{ organization, membership }]);
    });

    it('refuses a bootstrap of a non-empty store with already_exists and writes nothing', async () => {
      const before = await counts();
      expect(await harness.store.bootstrapIdentity(bootstrapInput(at))).toEqual({ ok: false, code: 'already_exists' });
      expect(await counts()).toEqual(before);
    });
  });
}
