import { describe, expect, it } from '@jest/globals';
import type { FederationTransactionRecord } from '@tessera/identity';
import { newTestSession, testUuidV7 } from '../identity-test.rows.js';
import { partition, unwrap, type ConformanceWorld } from './conformance.world.js';
import { FederationFixtures, testProviderId } from './federation.fixtures.js';

/** How many callbacks race for one state in the single-consumption case (issue 14 acceptance). */
const CONSUMERS = 20;

/**
 * Federation transactions (identity-model §9.2): stored under a live lease, consumed exactly once
 * by the callback of the same tenant and provider, expired ones deleted and refused.
 */
export function federationTransactionCases(world: ConformanceWorld): void {
  const fixtures = new FederationFixtures(world);

  const consume = (
    transaction: FederationTransactionRecord,
    over: { organizationId?: string; providerId?: string } = {},
  ) =>
    world.store.consumeFederationTransaction({
      selectorDigest: transaction.selectorDigest,
      organizationId: over.organizationId ?? transaction.lease.organizationId,
      providerId: over.providerId ?? transaction.lease.providerId,
      at: world.clock.now(),
    });

  const stored = (transaction: FederationTransactionRecord) =>
    world.rows.count('federation_transactions', 'selector_digest = ?', [transaction.selectorDigest]);

  describe('federation transactions', () => {
    it('stores an OIDC transaction and a SAML one with its initiating session, and hands each back once', async () => {
      const oidc = await fixtures.provider('oidc');
      const oidcTransaction = fixtures.transaction(oidc);
      unwrap(await world.store.createFederationTransaction(oidcTransaction));
      expect(unwrap(await consume(oidcTransaction))).toEqual(oidcTransaction);
      expect(await consume(oidcTransaction)).toEqual({ ok: false, code: 'not_found' });

      const saml = await fixtures.provider('saml');
      const userId = await fixtures.member(saml.organizationId);
      const session = newTestSession({ userId, at: world.clock.now() });
      await world.rows.session(session);
      const samlTransaction = fixtures.transaction(saml, { initiatorSessionId: session.id });
      unwrap(await world.store.createFederationTransaction(samlTransaction));
      expect(unwrap(await consume(samlTransaction))).toEqual(samlTransaction);
      expect(await stored(samlTransaction)).toBe(0);
    });

    it(`lets exactly one of ${CONSUMERS} concurrent callbacks consume a transaction`, async () => {
      const lease = await fixtures.provider();
      const transaction = fixtures.transaction(lease);
      unwrap(await world.store.createFederationTransaction(transaction));
      const { winners, codes } = partition(
        await Promise.all(Array.from({ length: CONSUMERS }, () => consume(transaction))),
      );
      expect(winners).toEqual([transaction]);
      expect(codes).toEqual(Array.from({ length: CONSUMERS - 1 }, () => 'not_found'));
      expect(await stored(transaction)).toBe(0);
    });

    it('deletes an expired transaction and answers challenge_expired, then not_found', async () => {
      const lease = await fixtures.provider();
      const transaction = fixtures.transaction(lease);
      unwrap(await world.store.createFederationTransaction(transaction));
      world.clock.set(transaction.expiresAt);
      expect(await consume(transaction)).toEqual({ ok: false, code: 'challenge_expired' });
      expect(await stored(transaction)).toBe(0);
      expect(await consume(transaction)).toEqual({ ok: false, code: 'not_found' });
    });

    it('answers not_found to another tenant or provider and keeps the transaction for its own callback', async () => {
      const lease = await fixtures.provider();
      const other = await fixtures.provider();
      const transaction = fixtures.transaction(lease);
      unwrap(await world.store.createFederationTransaction(transaction));
      expect(await consume(transaction, { organizationId: other.organizationId })).toEqual({
        ok: false,
        code: 'not_found',
      });
      expect(await consume(transaction, { providerId: testProviderId() })).toEqual({ ok: false, code: 'not_found' });
      expect(await consume(transaction, { organizationId: 'not-a-uuid' })).toEqual({ ok: false, code: 'not_found' });
      expect(await stored(transaction)).toBe(1);
      expect(unwrap(await consume(transaction))).toEqual(transaction);
    });

    it('refuses a transaction under a stale lease, a reused selector and an unknown initiating session', async () => {
      const lease = await fixtures.provider();
      const first = fixtures.transaction(lease);
      unwrap(await world.store.createFederationTransaction(first));
      const reused = fixtures.transaction(lease, { selectorDigest: first.selectorDigest });
      expect(await world.store.createFederationTransaction(reused)).toEqual({ ok: false, code: 'unique_constraint' });
      const orphan = fixtures.transaction(lease, { initiatorSessionId: testUuidV7() });
      expect(await world.store.createFederationTransaction(orphan)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await stored(orphan)).toBe(0);

      unwrap(await fixtures.disable(lease));
      const late = fixtures.transaction(lease);
      expect(await world.store.createFederationTransaction(late)).toEqual({
        ok: false,
        code: 'federation_provider_disabled',
      });
      expect(await stored(late)).toBe(0);
    });
  });
}
