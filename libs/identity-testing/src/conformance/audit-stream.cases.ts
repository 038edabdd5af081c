import { describe, expect, it } from '@jest/globals';
import {
  auditExportLines,
  type AuditEventInput,
  type AuditEventPosition,
  type AuditEventRecord,
} from '@tessera/identity';
import { testAuditEvent, testVariedAuditEvents } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

/** Newest first by (`occurredAt` desc, `id` desc): the order of the tenant stream. */
function newestFirst(a: { occurredAt: Date; id: string }, b: { occurredAt: Date; id: string }): number {
  const time = b.occurredAt.getTime() - a.occurredAt.getTime();
  return time !== 0 ? time : b.id < a.id ? -1 : b.id > a.id ? 1 : 0;
}

// Far before any instant the rest of the suite writes, so purges here delete only these events.
const ANCIENT = Date.parse('1994-03-01T00:00:00.000Z');

/**
 * The organization's audit stream as a keyset page (identity-model §8.3) and the bounded
 * retention delete (§8.4).
 */
export function auditStreamCases(world: ConformanceWorld): void {
  async function append(events: AuditEventInput[]): Promise<void> {
    for (const event of events) unwrap(await world.store.appendAuditEvent(event));
  }

  /** Every page of `limit` events of the organization, following `after` positions. */
  async function allPages(organizationId: string, limit: number): Promise<AuditEventRecord[][]> {
    const pages: AuditEventRecord[][] = [];
    let after: { occurredAt: Date; id: string } | undefined;
    for (;;) {
      const page = await world.store.listAuditEventsForOrganization(organizationId, {
        limit,
        ...(after === undefined ? {} : { after }),
      });
      pages.push(page.events);
      const last = page.events.at(-1);
      if (!page.hasMore || last === undefined) return pages;
      after = { occurredAt: last.occurredAt, id: last.id };
    }
  }

  describe('audit stream', () => {
    it('pages one organization newest first, equal instants by descending id, without other tenants or untenanted events', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const base = world.clock.now().getTime();
      const events = Array.from({ length: 13 }, (_, i) =>
        testAuditEvent({
          action: 'membership.changed',
          at: new Date(base + (i % 3) * 1000),
          organizationId,
          actor: { type: 'system' },
          target: { type: 'membership', id: `m-${i}` },
        }),
      );
      await append([
        ...events,
        testAuditEvent({ action: 'session.created', at: new Date(base), organizationId: world.organizationId }),
        testAuditEvent({ action: 'session.created', at: new Date(base) }),
      ]);
      const expected = [...events].sort(newestFirst);
      for (const limit of [1, 4, 13, 50]) {
        const pages = await allPages(organizationId, limit);
        expect(pages.flat().map((e) => e.id)).toEqual(expected.map((e) => e.id));
        expect(pages.every((page, i) => page.length === (i < pages.length - 1 ? limit : page.length))).toBe(true);
      }
      const [first] = (await world.store.listAuditEventsForOrganization(organizationId, { limit: 1 })).events;
      expect(first).toEqual(expected[0]);
    });

    it('continues strictly after the position even when newer events arrive between pages', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const at = world.clock.now();
      const events = Array.from({ length: 6 }, () =>
        testAuditEvent({ action: 'invitation.created', at, organizationId }),
      );
      await append(events);
      const expected = [...events].sort(newestFirst);
      const first = await world.store.listAuditEventsForOrganization(organizationId, { limit: 3 });
      expect(first).toEqual({ events: expected.slice(0, 3), hasMore: true });
      await append([
        testAuditEvent({ action: 'invitation.created', at: world.tick(), organizationId }),
        testAuditEvent({ action: 'invitation.created', at, organizationId }),
      ]);
      const last = first.events[2]!;
      const next = await world.store.listAuditEventsForOrganization(organizationId, {
        limit: 3,
        after: { occurredAt: last.occurredAt, id: last.id },
      });
      // An event inserted at the same instant lands in the next page only when its id is smaller.
      const older = (await allPages(organizationId, 100)).flat().filter((e) => newestFirst(last, e) < 0);
      expect(next.events).toEqual(older.slice(0, 3));
      expect(next.events.map((e) => e.id)).not.toContain(first.events[0]!.id);
    });

    it('answers an empty page for an unknown or malformed organization', async () => {
      expect(await world.store.listAuditEventsForOrganization('not-a-uuid', { limit: 5 })).toEqual({
        events: [],
        hasMore: false,
      });
      expect(await world.store.listAuditEventsForOrganization(await world.rows.organization(), { limit: 5 })).toEqual({
        events: [],
        hasMore: false,
      });
    });

    it('export lines equal the reference encoding (auditExportLines of route 29’s pages) line by line, in both formats, at every batch size', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const varied = testVariedAuditEvents(organizationId, world.clock.now().getTime());
      await append([
        ...varied,
        testAuditEvent({ action: 'session.created', at: world.clock.now(), organizationId: world.organizationId }),
      ]);
      for (const format of ['ndjson', 'csv'] as const) {
        const terminator = format === 'ndjson' ? '\n' : '\r\n';
        for (const limit of [1, 7, varied.length, 100]) {
          const pages = await allPages(organizationId, limit);
          let after: AuditEventPosition | undefined;
          for (const [index, page] of pages.entries()) {
            const batch = await world.store.exportAuditEventLines(organizationId, {
              limit,
              format,
              ...(after === undefined ? {} : { after }),
            });
            const expected = auditExportLines(page, format);
            // Line by line as strings (not parsed), then the whole text byte for byte; texts end at line ends.
            const joined = batch.texts.join('');
            expect(joined.split(terminator)).toEqual(expected.split(terminator));
            expect(joined).toBe(expected);
            expect(batch.texts.every((text) => text !== '' && text.endsWith(terminator))).toBe(true);
            const last = page.at(-1);
            expect({ ...batch, texts: joined }).toEqual({
              texts: expected,
              count: page.length,
              ...(last === undefined ? {} : { last: { occurredAt: last.occurredAt, id: last.id } }),
              hasMore: index < pages.length - 1,
            });
            after = batch.last;
          }
          expect(pages.flat()).toHaveLength(varied.length);
        }
      }
      // Sanity of the dataset: the view's optional fields are both present and absent.
      const ndjson = auditExportLines((await allPages(organizationId, 100)).flat(), 'ndjson');
      for (const field of ['"target"', '"reasonCode"', '"request"']) {
        const lines = ndjson.split('\n').slice(0, -1);
        expect(lines.some((line) => line.includes(`${field}:`))).toBe(true);
        expect(lines.some((line) => !line.includes(`${field}:`))).toBe(true);
      }
      expect(ndjson).not.toMatch(/userAgent|clientIpDigest/);
    });

    it('exports a large batch as texts split only at line ends that join to the reference encoding', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const base = world.clock.now().getTime();
      await append(
        Array.from({ length: 450 }, (_, i) =>
          testAuditEvent({ action: 'membership.changed', at: new Date(base - i * 1000), organizationId }),
        ),
      );
      const [page] = await allPages(organizationId, 450);
      for (const format of ['ndjson', 'csv'] as const) {
        const batch = await world.store.exportAuditEventLines(organizationId, { limit: 450, format });
        const terminator = format === 'ndjson' ? '\n' : '\r\n';
        expect(batch.texts.join('')).toBe(auditExportLines(page!, format));
        expect(batch.texts.every((text) => text !== '' && text.endsWith(terminator))).toBe(true);
        expect(batch).toMatchObject({ count: 450, hasMore: false, last: { id: page!.at(-1)!.id } });
      }
    });

    it('finds the positions ahead: the last event of each `step` page, at most `count`, chained from any position', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const base = world.clock.now().getTime();
      // Ties on the instant (ordered by id) across page boundaries.
      await append(
        Array.from({ length: 17 }, (_, i) =>
          testAuditEvent({ action: 'membership.changed', at: new Date(base + (i % 4) * 1000), organizationId }),
        ),
      );
      const position = (event: AuditEventRecord): AuditEventPosition => ({
        occurredAt: event.occurredAt,
        id: event.id,
      });
      for (const step of [1, 4, 5, 17, 40]) {
        // Full pages only: the last page's end is a position only when it holds `step` events.
        const ends = (await allPages(organizationId, step))
          .filter((page) => page.length === step)
          .map((page) => position(page.at(-1)!));
        expect(await world.store.findAuditEventPositions(organizationId, { step, count: 100 })).toEqual(ends);
        expect(await world.store.findAuditEventPositions(organizationId, { step, count: 2 })).toEqual(ends.slice(0, 2));
        // From a position: the pages that start there.
        if (ends.length > 1) {
          expect(
            await world.store.findAuditEventPositions(organizationId, { after: ends[0]!, step, count: 100 }),
          ).toEqual(ends.slice(1));
        }
      }
      const all = (await allPages(organizationId, 100)).flat();
      expect(
        await world.store.findAuditEventPositions(organizationId, { after: position(all.at(-1)!), step: 1, count: 5 }),
      ).toEqual([]);
    });

    it('finds no positions for an unknown, malformed or empty organization, and refuses a bad step or count', async () => {
      expect(await world.store.findAuditEventPositions('not-a-uuid', { step: 1, count: 5 })).toEqual([]);
      expect(await world.store.findAuditEventPositions(await world.rows.organization(), { step: 1, count: 5 })).toEqual(
        [],
      );
      for (const bad of [
        { step: 0, count: 1 },
        { step: 1, count: 0 },
        { step: 1.5, count: 1 },
        { step: 2 ** 16, count: 2 ** 16 },
      ]) {
        await expect(world.store.findAuditEventPositions(world.organizationId, bad)).rejects.toThrow(RangeError);
      }
    });

    it('exports an empty batch for an unknown, malformed or empty organization', async () => {
      const empty = { texts: [], count: 0, hasMore: false };
      for (const format of ['ndjson', 'csv'] as const) {
        expect(await world.store.exportAuditEventLines('not-a-uuid', { limit: 5, format })).toEqual(empty);
        expect(await world.store.exportAuditEventLines(await world.rows.organization(), { limit: 5, format })).toEqual(
          empty,
        );
      }
    });

    it('purges only events strictly older than the bound, oldest first, in bounded batches, and is repeatable', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const before = new Date(ANCIENT);
      const old = Array.from({ length: 7 }, (_, i) =>
        testAuditEvent({ action: 'session.revoked', at: new Date(ANCIENT - (7 - i) * 60_000), organizationId }),
      );
      const boundary = testAuditEvent({ action: 'session.revoked', at: before, organizationId });
      const recent = testAuditEvent({ action: 'session.revoked', at: new Date(ANCIENT + 1), organizationId });
      await append([...old, boundary, recent]);
      const oldest = [...old].sort((a, b) => -newestFirst(a, b));

      expect(await world.store.purgeAuditEvents({ before, batchSize: 3 })).toEqual({ deletedCount: 3, hasMore: true });
      expect(await world.storedAudits(oldest.slice(0, 3))).toBe(0);
      expect(await world.storedAudits(oldest.slice(3))).toBe(4);
      expect(await world.store.purgeAuditEvents({ before, batchSize: 3 })).toEqual({ deletedCount: 3, hasMore: true });
      expect(await world.store.purgeAuditEvents({ before, batchSize: 3 })).toEqual({ deletedCount: 1, hasMore: false });
      expect(await world.store.purgeAuditEvents({ before, batchSize: 3 })).toEqual({ deletedCount: 0, hasMore: false });
      expect(await world.storedAudits(old)).toBe(0);
      expect(await world.storedAudits([boundary, recent])).toBe(2);
    });

    it('deletes each expired event once under concurrent purges', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const old = Array.from({ length: 12 }, (_, i) =>
        testAuditEvent({ action: 'session.revoked', at: new Date(ANCIENT - 3_600_000 - i * 1000), organizationId }),
      );
      await append(old);
      const results = await Promise.all(
        Array.from({ length: world.concurrency }, () =>
          world.store.purgeAuditEvents({ before: new Date(ANCIENT), batchSize: 5 }),
        ),
      );
      const deleted = results.reduce((sum, result) => sum + result.deletedCount, 0);
      let rest = { deletedCount: 0, hasMore: true };
      let more = 0;
      while (rest.hasMore) {
        rest = await world.store.purgeAuditEvents({ before: new Date(ANCIENT), batchSize: 5 });
        more += rest.deletedCount;
      }
      expect(deleted + more).toBe(12);
      expect(await world.storedAudits(old)).toBe(0);
    });
  });
}
