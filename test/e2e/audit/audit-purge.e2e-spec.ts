import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IdentityAudit } from '@tessera/identity';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { seedOrganization, tenantRows } from '../../support/tenant-seed.js';
import { insertEvents, seedEvent } from './audit-seed.js';

const DAY = 86_400_000;

describe('audit retention purge (identity-model §8.4)', () => {
  let identity: IdentityTestApp;
  let audit: IdentityAudit;
  let now: number;

  beforeAll(async () => {
    identity = await bootIdentityApp({ audit: { userAgent: 'omit', retentionDays: 30 } });
    audit = identity.app.get(IdentityAudit);
    now = identity.clock.now().getTime();
  });
  afterAll(async () => identity?.close());

  const remaining = () => tenantRows(identity).count('audit_events');

  it('deletes only events strictly older than the retention, oldest first, at most the batch size per call, and is repeatable', async () => {
    const organizationId = await seedOrganization(identity);
    const expired = Array.from({ length: 600 }, (_, i) => seedEvent(now - 31 * DAY - i * 1000));
    const boundary = seedEvent(now - 30 * DAY);
    const kept = [boundary, seedEvent(now - 30 * DAY + 1), seedEvent(now - DAY), seedEvent(now)];
    await insertEvents(identity, organizationId, [...expired, ...kept]);

    // Default batch size: 250.
    expect(await audit.purgeExpired()).toEqual({ deletedCount: 250, hasMore: true });
    const [oldest] = await tenantRows(identity).sql(
      'select (extract(epoch from min(occurred_at)) * 1000)::bigint as ms from tessera_identity.audit_events',
    );
    // Oldest first: the 250 oldest expired events went first.
    expect(Number(oldest!['ms'])).toBe(expired[349]!.occurredAt.getTime());
    expect(await audit.purgeExpired()).toEqual({ deletedCount: 250, hasMore: true });
    expect(await audit.purgeExpired()).toEqual({ deletedCount: 100, hasMore: false });
    expect(await audit.purgeExpired()).toEqual({ deletedCount: 0, hasMore: false });
    expect(await remaining()).toBe(4);
    const ids = (await tenantRows(identity).sql('select id from tessera_identity.audit_events')).map((r) => r['id']);
    expect(new Set(ids)).toEqual(new Set(kept.map((e) => e.id)));
  });

  it('follows the frozen clock and honours an explicit batch size', async () => {
    identity.clock.advance({ days: 1 });
    try {
      expect(await audit.purgeExpired({ batchSize: 1 })).toEqual({ deletedCount: 1, hasMore: true });
      expect(await audit.purgeExpired({ batchSize: 500 })).toEqual({ deletedCount: 1, hasMore: false });
      expect(await remaining()).toBe(2);
    } finally {
      identity.clock.set(new Date(now).toISOString());
    }
  });

  it.each([0, 501, 2.5, Number.NaN])('refuses the batch size %p before touching the store', async (batchSize) => {
    const before = await remaining();
    await expect(audit.purgeExpired({ batchSize })).rejects.toThrow(RangeError);
    expect(await remaining()).toBe(before);
  });
});
