import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeAuditCursor } from '@tessera/identity';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { getAs, seedMember, seedOrganization, tenantRows } from '../../support/tenant-seed.js';
import type { TestSession } from '../../support/passkey-client.js';
import { insertEvents, newestFirst, seedEvent, type SeedEvent } from './audit-seed.js';

const BASE = Date.parse('2026-07-14T08:00:00.000Z');

/** An event strictly above `position` in the stream: newer, or at the same instant with a larger id. */
function eventAbove(position: SeedEvent, newer: boolean, offsetMs: number): SeedEvent {
  if (newer) return seedEvent(position.occurredAt.getTime() + 1 + offsetMs);
  for (;;) {
    const candidate = seedEvent(position.occurredAt);
    if (candidate.id > position.id) return candidate;
  }
}

describe('audit-events keyset pagination (property)', () => {
  let identity: IdentityTestApp;
  let owner: TestSession;
  let ownerId: string;

  beforeAll(async () => {
    identity = await bootIdentityApp();
    const first = await seedOrganization(identity);
    const seeded = await seedMember(identity, first, 'owner');
    owner = seeded.session;
    ownerId = seeded.userId;
  });
  afterAll(async () => identity?.close());

  it('concatenates pages into the snapshot order with no duplicate and no gap, whatever the page sizes, ties and inserts above the cursor between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 45 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.array(fc.tuple(fc.boolean(), fc.nat(5_000)), { maxLength: 3 }), { maxLength: 8 }),
        async (slots, pageSizes, insertsBetweenPages) => {
          // A fresh organization per run: its stream holds exactly this run's events.
          const organizationId = await seedOrganization(identity);
          await tenantRows(identity).membership(organizationId, ownerId, { role: 'owner' });
          // Few distinct instants (one second apart), so most events share their timestamp.
          const events = slots.map((slot) => seedEvent(BASE + slot * 1000));
          await insertEvents(identity, organizationId, events);
          const snapshot = [...events].sort(newestFirst).map((e) => e.id);

          const seen: string[] = [];
          let cursor: string | undefined;
          let page = 0;
          for (;;) {
            const limit = pageSizes[page % pageSizes.length]!;
            const query = cursor === undefined ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
            const inserts = page === 0 ? [] : (insertsBetweenPages[page - 1] ?? []);
            const position = cursor === undefined ? undefined : decodeAuditCursor(cursor)!;
            const above = position
              ? inserts.map(([newer, offset]) =>
                  eventAbove({ id: position.eventId, occurredAt: position.occurredAt }, newer, offset),
                )
              : [];
            // Events land above the cursor while the next page is being read.
            const [res] = await Promise.all([
              getAs(identity, `/identity/v1/organizations/${organizationId}/audit-events?${query}`, owner),
              insertEvents(identity, organizationId, above),
            ]);
            expect(res.status).toBe(200);
            const ids = res.body.events.map((e: { id: string }) => e.id);
            seen.push(...ids);
            cursor = res.body.nextCursor;
            if (cursor === undefined) break;
            expect(ids).toHaveLength(limit);
            page++;
            // Every page but the last is full, so a correct walk ends within the snapshot's size.
            expect(page).toBeLessThanOrEqual(snapshot.length);
          }
          expect(seen).toEqual(snapshot);
          expect(new Set(seen).size).toBe(seen.length);
        },
      ),
      { numRuns: 40 },
    );
  });
});
