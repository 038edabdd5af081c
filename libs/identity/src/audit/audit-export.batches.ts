import type {
  AuditEventPosition,
  AuditExportBatch,
  AuditExportLineFormat,
} from '../store/identity-invitation-audit.port.js';

/**
 * Events per store call of an export: one keyset batch, encoded by the store
 * (`exportAuditEventLines`) as one text of about 350 KiB. The database's work per event is the same
 * for 500–4,000 (measured on the batch statement); 1,000 keeps the round trips few and the batches
 * in flight small.
 */
export const AUDIT_EXPORT_BATCH_SIZE = 1000;

/**
 * Batch reads in flight at once. Building a batch's lines is the database's work (~9 ms per 1,000
 * events on one backend); two reads on two pooled connections keep the database busy while the
 * server writes the previous batch (bench/audit/export.mjs). A single-connection pool (embedded
 * PGlite) just queues them.
 */
export const AUDIT_EXPORT_READS_IN_FLIGHT = 2;

/** Batch starts planned per `positions` read (an index-only scan of 32,000 entries). */
export const AUDIT_EXPORT_PLANNED_BATCHES = 32;

/** An organization's audit stream as an export reads it, authorized (`IdentityOrganizations.auditExport`). */
export interface AuditExportSource {
  readonly organizationId: string;
  /** Where the export starts: after the request's cursor, or at the newest event. */
  readonly after?: AuditEventPosition;
  /** The request's cursor text, echoed by a trailer when nothing was written. */
  readonly cursor?: string;
  /** One keyset batch as export lines (a bounded store read; failures reject). */
  page(after: AuditEventPosition | undefined, limit: number, format: AuditExportLineFormat): Promise<AuditExportBatch>;
  /**
   * The positions of the `step`-th, 2·`step`-th, … event after `after`, at most `count`
   * (`findAuditEventPositions`; a bounded store read; failures reject).
   */
  positions(after: AuditEventPosition | undefined, step: number, count: number): Promise<AuditEventPosition[]>;
}

/** A batch read started ahead, and where it starts. */
interface InFlight {
  readonly after: AuditEventPosition | undefined;
  readonly limit: number;
  readonly read: Promise<AuditExportBatch>;
}

/** A read whose failure is reported only to whoever awaits it (never as an unhandled rejection). */
function settledLater<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

function samePosition(a: AuditEventPosition | undefined, b: AuditEventPosition): boolean {
  return a !== undefined && a.id === b.id && a.occurredAt.getTime() === b.occurredAt.getTime();
}

/**
 * The keyset batches of one export, handed out strictly in stream order while up to
 * {@link AUDIT_EXPORT_READS_IN_FLIGHT} of them are read at once.
 *
 * A batch can start before the previous one arrived because its start is PLANNED: a `positions`
 * read names where every {@link AUDIT_EXPORT_BATCH_SIZE}-th event lies ahead. The plan is only a
 * guess about a stream that may change meanwhile (an event committed late, a retention purge), so
 * what is handed out never depends on it: each batch handed out is checked to end exactly where
 * the next planned batch starts; when it does not, every read started from the plan is dropped and
 * reading goes on strictly after that batch's last event. The batches handed out are therefore
 * exactly those of one-at-a-time keyset reading (each starts right after the previous one's last
 * event), only sooner.
 *
 * @example
 * const batches = new AuditExportBatches(source, 'ndjson', 1_000_000);
 * let batch = await batches.next();
 * while (batch.hasMore) batch = await batches.next();
 */
export class AuditExportBatches {
  private readonly inFlight: InFlight[] = [];
  /** Planned batch starts not yet read, in stream order. */
  private starts: (AuditEventPosition | undefined)[];
  /** The last planned start (the next plan begins there), or null when the plan reached the end. */
  private frontier: { readonly after: AuditEventPosition | undefined } | null;
  private planning?: { readonly generation: number; readonly read: Promise<void> };
  /** Bumped when the plan is dropped: a plan read of an older generation is ignored. */
  private generation = 0;
  /** Events asked for so far (the sum of the limits of the reads started). */
  private requested = 0;
  /** Set by {@link close} and by a failed read: no read starts any more. */
  private closed = false;

  constructor(
    private readonly source: AuditExportSource,
    private readonly format: AuditExportLineFormat,
    private readonly maxEvents: number,
  ) {
    this.starts = [source.after];
    this.frontier = { after: source.after };
  }

  /**
   * The next batch in stream order. Call it again only while the previous batch had `hasMore`
   * (and the caller wants more); a failed read rejects.
   */
  async next(): Promise<AuditExportBatch> {
    this.fill();
    while (this.inFlight.length === 0) {
      if (this.closed || this.planning === undefined) throw new Error('audit export: no batch left to read');
      await this.settle(this.planning.read);
      this.fill();
    }
    const head = this.inFlight.shift()!;
    const batch = await this.settle(head.read);
    if (!batch.hasMore || batch.last === undefined) return batch;
    // Where the next batch will start, as planned (a pending plan read names it).
    if (this.inFlight.length === 0 && this.starts.length === 0 && this.planning !== undefined) {
      await this.settle(this.planning.read);
    }
    const planned = this.inFlight.length > 0 ? this.inFlight[0]!.after : this.starts[0];
    if (batch.count !== head.limit || !samePosition(planned, batch.last)) this.replan(batch.last);
    this.fill();
    return batch;
  }

  /**
   * Starts no read any more (the writer is done: the stream ended, the cap was reached, the client
   * left or a read failed). Reads already started finish unobserved.
   */
  close(): void {
    this.closed = true;
  }

  /** Awaits a read; its failure closes the batches (an export does not go on past a failed read). */
  private async settle<T>(read: Promise<T>): Promise<T> {
    try {
      return await read;
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Starts planned reads up to the in-flight bound and the export's cap; plans ahead when short. */
  private fill(): void {
    if (this.closed) return;
    while (this.inFlight.length < AUDIT_EXPORT_READS_IN_FLIGHT && this.requested < this.maxEvents) {
      if (this.starts.length === 0) break;
      const after = this.starts.shift();
      const limit = Math.min(AUDIT_EXPORT_BATCH_SIZE, this.maxEvents - this.requested);
      this.inFlight.push({ after, limit, read: settledLater(this.source.page(after, limit, this.format)) });
      this.requested += limit;
    }
    if (this.starts.length < AUDIT_EXPORT_READS_IN_FLIGHT) this.plan();
  }

  /** Reads the next batch starts after the frontier, unless one is pending or the plan reached the end or the cap. */
  private plan(): void {
    const frontier = this.frontier;
    const plannedEvents = this.requested + this.starts.length * AUDIT_EXPORT_BATCH_SIZE;
    if (this.planning !== undefined || frontier === null || plannedEvents >= this.maxEvents) return;
    const generation = this.generation;
    const read = this.source
      .positions(frontier.after, AUDIT_EXPORT_BATCH_SIZE, AUDIT_EXPORT_PLANNED_BATCHES)
      .then((positions) => {
        if (generation !== this.generation) return;
        this.planning = undefined;
        this.starts.push(...positions);
        this.frontier = positions.length < AUDIT_EXPORT_PLANNED_BATCHES ? null : { after: positions.at(-1) };
        // Keep the reads going while the writer is busy with a batch already handed out.
        if (this.inFlight.length > 0) this.fill();
      });
    this.planning = { generation, read: settledLater(read) };
  }

  /** Drops every read started from the plan; reading goes on strictly after `last`. */
  private replan(last: AuditEventPosition): void {
    this.generation++;
    this.planning = undefined;
    for (const dropped of this.inFlight.splice(0)) this.requested -= dropped.limit;
    this.starts = [last];
    this.frontier = { after: last };
  }
}
