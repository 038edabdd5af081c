import { describe, expect, it } from '@jest/globals';
import type { AuditEventPosition, AuditExportBatch } from '../store/identity-invitation-audit.port.js';
import {
  AUDIT_EXPORT_BATCH_SIZE,
  AUDIT_EXPORT_PLANNED_BATCHES,
  AUDIT_EXPORT_READS_IN_FLIGHT,
  AuditExportBatches,
  type AuditExportSource,
} from './audit-export.batches.js';

const BASE = Date.parse('2026-11-01T00:00:00.000Z');

/** Event `i` of a stream: newer for smaller `i`; two events per instant (ties ordered by id). */
function event(i: number): AuditEventPosition {
  return { occurredAt: new Date(BASE - Math.floor(i / 2) * 1000), id: `e-${String(1e9 - i).padStart(10, '0')}` };
}

const newestFirst = (a: AuditEventPosition, b: AuditEventPosition) =>
  b.occurredAt.getTime() - a.occurredAt.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);

/**
 * A stream held in memory that answers like the store: every read sees the stream as it is when
 * the read completes (a later macrotask), so the test can change it while reads are in flight.
 */
class MemoryStream implements AuditExportSource {
  readonly organizationId = 'org';
  events: AuditEventPosition[];
  inFlight = 0;
  maxInFlight = 0;
  pageReads = 0;
  positionReads = 0;
  failPage?: (after: AuditEventPosition | undefined) => boolean;
  failPositions = false;
  /** Runs once before the first read that starts after `at` is answered. */
  onRead?: { at: AuditEventPosition; change: () => void };

  constructor(
    count: number,
    readonly after?: AuditEventPosition,
  ) {
    this.events = Array.from({ length: count }, (_, i) => event(i));
  }

  private older(after: AuditEventPosition | undefined): AuditEventPosition[] {
    return after === undefined ? this.events : this.events.filter((e) => newestFirst(after, e) < 0);
  }

  private async answer<T>(after: AuditEventPosition | undefined, work: () => T): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.onRead !== undefined && after !== undefined && newestFirst(this.onRead.at, after) <= 0) {
        const { change } = this.onRead;
        this.onRead = undefined;
        change();
      }
      return work();
    } finally {
      this.inFlight--;
    }
  }

  page(after: AuditEventPosition | undefined, limit: number): Promise<AuditExportBatch> {
    this.pageReads++;
    return this.answer(after, () => {
      if (this.failPage?.(after)) throw new Error('store unavailable');
      const older = this.older(after);
      const events = older.slice(0, limit);
      const last = events.at(-1);
      return {
        // Split like an adapter may: at line ends, in texts of up to 300 lines.
        texts: Array.from({ length: Math.ceil(events.length / 300) }, (_, k) =>
          events
            .slice(k * 300, (k + 1) * 300)
            .map((e) => `${e.id}\n`)
            .join(''),
        ),
        count: events.length,
        ...(last === undefined ? {} : { last }),
        hasMore: older.length > limit,
      };
    });
  }

  positions(after: AuditEventPosition | undefined, step: number, count: number): Promise<AuditEventPosition[]> {
    this.positionReads++;
    return this.answer(after, () => {
      if (this.failPositions) throw new Error('store unavailable');
      const older = this.older(after);
      return Array.from({ length: count }, (_, k) => older[(k + 1) * step - 1]).filter(
        (p): p is AuditEventPosition => p !== undefined,
      );
    });
  }
}

/** Everything an export would hand out, as the writer consumes it (stops at `maxEvents`). */
async function drain(source: AuditExportSource, maxEvents: number): Promise<{ ids: string[]; counts: number[] }> {
  const batches = new AuditExportBatches(source, 'ndjson', maxEvents);
  const ids: string[] = [];
  const counts: number[] = [];
  for (;;) {
    const batch = await batches.next();
    ids.push(...batch.texts.join('').split('\n').slice(0, -1));
    counts.push(batch.count);
    if (!batch.hasMore || ids.length >= maxEvents) return { ids, counts };
  }
}

/** One-at-a-time keyset reading of the stream as it is now: the reference. */
function sequential(stream: MemoryStream, maxEvents: number): string[] {
  const older =
    stream.after === undefined ? stream.events : stream.events.filter((e) => newestFirst(stream.after!, e) < 0);
  return older.slice(0, maxEvents).map((e) => e.id);
}

describe('AuditExportBatches: keyset batches read ahead, handed out in stream order', () => {
  it.each([0, 1, 999, 1000, 1001, 2500, AUDIT_EXPORT_BATCH_SIZE * AUDIT_EXPORT_PLANNED_BATCHES * 2 + 17])(
    'hands out the %i events of a stream exactly as one-at-a-time reading, in full batches',
    async (count) => {
      const stream = new MemoryStream(count);
      const { ids, counts } = await drain(stream, 1_000_000);
      expect(ids).toEqual(sequential(stream, 1_000_000));
      expect(counts.slice(0, -1).every((c) => c === AUDIT_EXPORT_BATCH_SIZE)).toBe(true);
      expect(stream.maxInFlight).toBeLessThanOrEqual(AUDIT_EXPORT_READS_IN_FLIGHT + 1);
    },
  );

  it('reads batches concurrently (the point of planning) but never more than the bound', async () => {
    const stream = new MemoryStream(AUDIT_EXPORT_BATCH_SIZE * 10);
    await drain(stream, 1_000_000);
    // Two batch reads plus, at times, one plan read.
    expect(stream.maxInFlight).toBeGreaterThanOrEqual(AUDIT_EXPORT_READS_IN_FLIGHT);
    expect(stream.maxInFlight).toBeLessThanOrEqual(AUDIT_EXPORT_READS_IN_FLIGHT + 1);
    // Ten batches plus the empty one after the last full batch, each read once.
    expect(stream.pageReads).toBe(11);
  });

  it('starts after the cursor position and stops at maxEvents without reading past it', async () => {
    const stream = new MemoryStream(10_000, event(1234));
    const { ids, counts } = await drain(stream, 2500);
    expect(ids).toEqual(sequential(stream, 2500));
    expect(counts).toEqual([1000, 1000, 500]);
    expect(stream.pageReads).toBe(3);
  });

  it('stays exact when an event is committed late into a planned range (no event lost or repeated)', async () => {
    const stream = new MemoryStream(6000);
    const late = { occurredAt: event(2500).occurredAt, id: 'e-late' };
    // While the second batch is read, an event lands inside the third batch's planned range.
    stream.onRead = {
      at: event(999),
      change: () => (stream.events = [...stream.events, late].sort(newestFirst)),
    };
    const { ids } = await drain(stream, 1_000_000);
    expect(ids).toEqual(sequential(stream, 1_000_000));
    expect(ids).toContain('e-late');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stays exact when a purge removes events of planned ranges', async () => {
    const stream = new MemoryStream(6000);
    stream.onRead = { at: event(999), change: () => (stream.events = stream.events.slice(0, 4100)) };
    const { ids } = await drain(stream, 1_000_000);
    expect(ids).toEqual(sequential(stream, 1_000_000));
    expect(ids).toHaveLength(4100);
  });

  it('rejects the batch whose read failed, after handing out the ones before it', async () => {
    const stream = new MemoryStream(5000);
    stream.failPage = (after) => after !== undefined && after.id === event(2999).id;
    const batches = new AuditExportBatches(stream, 'csv', 1_000_000);
    expect((await batches.next()).count).toBe(1000);
    expect((await batches.next()).count).toBe(1000);
    expect((await batches.next()).count).toBe(1000);
    await expect(batches.next()).rejects.toThrow('store unavailable');
  });

  it('rejects when the plan cannot be read (the batch it would continue from is not handed out)', async () => {
    const stream = new MemoryStream(5000);
    stream.failPositions = true;
    const batches = new AuditExportBatches(stream, 'ndjson', 1_000_000);
    await expect(batches.next()).rejects.toThrow('store unavailable');
  });

  it('starts no read after a failed one or after close, even when a plan arrives later', async () => {
    const stream = new MemoryStream(40_000);
    stream.failPage = (after) => after !== undefined;
    const batches = new AuditExportBatches(stream, 'ndjson', 1_000_000);
    expect((await batches.next()).count).toBe(1000);
    await expect(batches.next()).rejects.toThrow('store unavailable');
    const reads = stream.pageReads;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stream.pageReads).toBe(reads);
    const closed = new AuditExportBatches(new MemoryStream(40_000), 'ndjson', 1_000_000);
    closed.close();
    await expect(closed.next()).rejects.toThrow('no batch left');
  });

  it('needs no plan for a stream that fits one batch', async () => {
    const stream = new MemoryStream(700);
    stream.failPositions = true;
    expect((await drain(stream, 1_000_000)).ids).toEqual(sequential(stream, 1_000_000));
  });
});
