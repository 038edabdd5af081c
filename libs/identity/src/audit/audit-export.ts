import type { ResponseStream } from '@tessera/web';
import type {
  AuditExportBatch,
  AuditEventPosition,
  AuditExportLineFormat,
} from '../store/identity-invitation-audit.port.js';
import { encodeAuditCursor } from './audit-cursor.js';
import type { AuditExportEncoder } from './audit-export.format.js';

/**
 * Events per store call of an export: one keyset batch, encoded by the store
 * (`exportAuditEventLines`) as one text of about 350 KiB. The database's work per event is the same
 * for 500–4,000 (measured on the batch statement); 1,000 keeps the round trips few and the two
 * batches in flight small.
 */
export const AUDIT_EXPORT_BATCH_SIZE = 1000;

/** An organization's audit stream as an export reads it, authorized (`IdentityOrganizations.auditExport`). */
export interface AuditExportSource {
  readonly organizationId: string;
  /** Where the export starts: after the request's cursor, or at the newest event. */
  readonly after?: AuditEventPosition;
  /** The request's cursor text, echoed by a trailer when nothing was written. */
  readonly cursor?: string;
  /** One keyset batch as export lines (a bounded store read; failures reject). */
  page(after: AuditEventPosition | undefined, limit: number, format: AuditExportLineFormat): Promise<AuditExportBatch>;
}

/**
 * Writes an organization's audit stream newest first, in keyset batches of
 * {@link AUDIT_EXPORT_BATCH_SIZE}. The response is opened (`open`) only once the first batch was
 * read, so a store that fails at once is an ordinary error answer (503). Then the next batch is
 * fetched while the current one is written, and each write waits for the socket (backpressure):
 * at most two batches are held, whatever the size of the stream. Stops after `maxEvents` events
 * (trailer `complete: false`), when the oldest event was written (`complete: true`), or silently
 * when the client went away. A store read failing midway ends the body WITHOUT a trailer (so the
 * client knows it is incomplete) and rejects.
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
  const fetch = (after: AuditEventPosition | undefined, room: number) => {
    const read = source.page(after, Math.min(AUDIT_EXPORT_BATCH_SIZE, room), encoder.format);
    // A prefetched batch is awaited only after the current one is written (or never, when the
    // client left): its failure must not count as an unhandled rejection meanwhile.
    read.catch(() => undefined);
    return read;
  };
  let page = await fetch(source.after, maxEvents);
  const body = open();
  let pending: Promise<AuditExportBatch> | undefined;
  let cursor = source.cursor ?? null;
  let written = 0;
  try {
    if (!body.open || (encoder.head !== '' && !(await body.write(encoder.head)))) return;
    for (;;) {
      const last = page.last;
      const room = maxEvents - written - page.count;
      pending = page.hasMore && room > 0 && last !== undefined ? fetch(last, room) : undefined;
      if (last !== undefined) {
        // One socket write per batch: the store already joined its lines into one string.
        if (!(await body.write(page.text))) return;
        written += page.count;
        cursor = encodeAuditCursor({
          organizationId: source.organizationId,
          occurredAt: last.occurredAt,
          eventId: last.id,
        });
      }
      if (pending === undefined) {
        if (await body.write(encoder.trailer({ cursor, complete: !page.hasMore }))) body.end();
        return;
      }
      page = await pending;
    }
  } catch (error) {
    body.end();
    throw error;
  }
}
