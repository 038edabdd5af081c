import type { ResponseStream } from '@tessera/web';
import { encodeAuditCursor } from './audit-cursor.js';
import { AuditExportBatches, type AuditExportSource } from './audit-export.batches.js';
import type { AuditExportEncoder } from './audit-export.format.js';

/**
 * Writes an organization's audit stream newest first, in the keyset batches of
 * {@link AuditExportBatches} (read ahead, up to two at once, handed out in stream order). The
 * response is opened (`open`) only once the first batch was read, so a store that fails at once is
 * an ordinary error answer (503). Each write waits for the socket (backpressure), so at most the
 * batch being written and the reads in flight are held, whatever the size of the stream. Stops
 * after `maxEvents` events (trailer `complete: false`), when the oldest event was written
 * (`complete: true`), or silently when the client went away. A store read failing midway ends the
 * body WITHOUT a trailer (so the client knows it is incomplete) and rejects.
 *
 * @example
 * await writeAuditExport(() => exchange.respondStream({ headers }), source, auditExportEncoder('ndjson'), 1_000_000);
 */
export async function writeAuditExport(
  open: () => ResponseStream,
  source: AuditExportSource,
  encoder: AuditExportEncoder,
  maxEvents: number,
): Promise<void> {
  const batches = new AuditExportBatches(source, encoder.format, maxEvents);
  // A failed read closes the batches itself.
  let page = await batches.next();
  const body = open();
  let cursor = source.cursor ?? null;
  let written = 0;
  try {
    if (!body.open || (encoder.head !== '' && !(await body.write(encoder.head)))) return;
    for (;;) {
      const last = page.last;
      const more = page.hasMore && last !== undefined && written + page.count < maxEvents;
      if (last !== undefined) {
        // A few socket writes per batch: the store already joined its lines into a few texts.
        for (const text of page.texts) if (!(await body.write(text))) return;
        written += page.count;
        cursor = encodeAuditCursor({
          organizationId: source.organizationId,
          occurredAt: last.occurredAt,
          eventId: last.id,
        });
      }
      if (!more) {
        if (await body.write(encoder.trailer({ cursor, complete: !page.hasMore }))) body.end();
        return;
      }
      page = await batches.next();
    }
  } catch (error) {
    body.end();
    throw error;
  } finally {
    batches.close();
  }
}
