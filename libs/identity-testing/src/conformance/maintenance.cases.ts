import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { RateLimitPolicy } from '@tessera/identity';
import { newTestChallenge } from '../identity-test.credentials.js';
import { testRateLimitKey, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

const MINUTE = 60_000;

/**
 * The maintenance purge of expiring rows (identity-model §9): bounded batches, only rows whose
 * expiry passed. Its rows are dated a month before the world's clock, so the cutoff used here
 * reaches no other case's rows.
 */
export function maintenanceCases(world: ConformanceWorld): void {
  describe('expired-row maintenance', () => {
    const past = () => new Date(world.clock.now().getTime() - 30 * 24 * 60 * MINUTE);

    async function challenge(at: Date, ttlSeconds: number) {
      return unwrap(
        await world.store.createChallenge({ challenge: newTestChallenge({ at, ttlSeconds }), at, audits: [] }),
      );
    }

    async function replayReceipt(at: Date, ttlSeconds: number): Promise<string> {
      const id = testUuidV7(at);
      await world.rows.insert('external_replay_receipts', {
        id,
        provider: `oidc.${randomBytes(32).toString('base64url')}`,
        assertion_digest: randomBytes(32).toString('base64url'),
        expires_at: new Date(at.getTime() + ttlSeconds * 1000),
        created_at: at,
      });
      return id;
    }

    async function federationTransaction(at: Date, ttlSeconds: number): Promise<string> {
      const selectorDigest = randomBytes(32).toString('base64url');
      await world.rows.insert('federation_transactions', {
        selector_digest: selectorDigest,
        organization_id: world.organizationId,
        provider_id: 'idp',
        kind: 'saml',
        storage_key: `saml.${randomBytes(32).toString('base64url')}`,
        provider_session_epoch: 0,
        provider_version: 0,
        pkce_verifier_ciphertext: null,
        request_id_ciphertext: randomBytes(48),
        nonce_digest: null,
        expires_at: new Date(at.getTime() + ttlSeconds * 1000),
        created_at: at,
      });
      return selectorDigest;
    }

    const exists = async (table: string, column: string, id: string) =>
      (await world.rows.count(table, `${column} = ?`, [id])) === 1;

    it('deletes challenges, limiter buckets and replay receipts whose expiry passed, and keeps the rest', async () => {
      const at = past();
      const expired = await challenge(at, 60);
      const live = await challenge(at, 600);
      const policy: RateLimitPolicy = { name: 'sign_in', limit: 5, windowSeconds: 60 };
      const [oldBucket, liveBucket] = [testRateLimitKey(policy.name), testRateLimitKey(policy.name)];
      await world.limiter().consume(policy, oldBucket, at);
      await world.limiter().consume(policy, liveBucket, new Date(at.getTime() + 4 * MINUTE));
      const oldReceipt = await replayReceipt(at, 60);
      const liveReceipt = await replayReceipt(at, 600);
      const before = new Date(at.getTime() + 2 * MINUTE);
      const batch = unwrap(await world.store.purgeExpiredRows({ before, batchSize: 100 }));
      expect(batch.acquired).toBe(true);
      expect(batch.deleted.challenges).toBeGreaterThanOrEqual(1);
      expect(await exists('challenges', 'id', expired.id)).toBe(false);
      expect(await exists('challenges', 'id', live.id)).toBe(true);
      expect(await exists('rate_limit_buckets', 'bucket_key', oldBucket)).toBe(false);
      expect(await exists('rate_limit_buckets', 'bucket_key', liveBucket)).toBe(true);
      expect(await exists('external_replay_receipts', 'id', oldReceipt)).toBe(false);
      expect(await exists('external_replay_receipts', 'id', liveReceipt)).toBe(true);
    });

    it('deletes federation transactions whose expiry passed and keeps the live ones', async () => {
      const at = new Date(past().getTime() - 120 * MINUTE);
      const expired = await federationTransaction(at, 300);
      const live = await federationTransaction(at, 900);
      const batch = unwrap(
        await world.store.purgeExpiredRows({ before: new Date(at.getTime() + 10 * MINUTE), batchSize: 100 }),
      );
      expect(batch.deleted.federationTransactions).toBeGreaterThanOrEqual(1);
      expect(await exists('federation_transactions', 'selector_digest', expired)).toBe(false);
      expect(await exists('federation_transactions', 'selector_digest', live)).toBe(true);
    });

    it('deletes at most batchSize rows of a table per batch and says more are left', async () => {
      const at = new Date(past().getTime() - 60 * MINUTE);
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await challenge(at, 30)).id);
      const before = new Date(at.getTime() + MINUTE);
      const first = unwrap(await world.store.purgeExpiredRows({ before, batchSize: 3 }));
      expect(first).toMatchObject({ acquired: true, hasMore: true });
      expect(first.deleted.challenges).toBe(3);
      const second = unwrap(await world.store.purgeExpiredRows({ before, batchSize: 3 }));
      expect(second.deleted.challenges).toBe(2);
      expect(second.hasMore).toBe(false);
      expect(await world.rows.count('challenges', `id in (${ids.map(() => '?').join(', ')})`, ids)).toBe(0);
    });
  });
}
